package dev.dockyard.protocol;

import java.math.BigDecimal;
import java.time.Duration;

/**
 * Numbers written the way OpenHands' Python f-strings write them, so that texts agents match on
 * are the same: a float's {@code repr} ({@code 3.0}, {@code 2.5}, {@code 1e-05}, {@code 1e+16}).
 */
public final class PythonNumbers {

    private PythonNumbers() {
    }

    /** A timeout as OpenHands prints {@code action.timeout} (always a float there). */
    public static String seconds(Double requested, Duration applied) {
        return repr(requested != null ? requested : applied.toMillis() / 1000.0);
    }

    /** Python's {@code repr(float)}: shortest digits, positional between 1e-4 and 1e16. */
    public static String repr(double value) {
        if (Double.isNaN(value)) {
            return "nan";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "inf" : "-inf";
        }
        if (value == 0) {
            return 1 / value < 0 ? "-0.0" : "0.0";
        }
        BigDecimal digits = new BigDecimal(Double.toString(value)).stripTrailingZeros();
        int exponent = digits.precision() - digits.scale() - 1;
        if (exponent < -4 || exponent >= 16) {
            String unscaled = digits.unscaledValue().abs().toString();
            String mantissa = unscaled.length() == 1 ? unscaled : unscaled.charAt(0) + "." + unscaled.substring(1);
            String sign = value < 0 ? "-" : "";
            return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + String.format("%02d", Math.abs(exponent));
        }
        String plain = digits.toPlainString();
        return plain.contains(".") ? plain : plain + ".0";
    }
}
