package dev.dockyard.images;

import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Who may have a shell snippet ({@code extraDeps.script}) run in an image build: it runs as root in
 * the build container, on the node's engine, and its result becomes an image. MP Config
 * {@value #SETTING}: {@code admins} (the default), {@code users} (anyone who may provision) or
 * {@code none}. Apt package lists are not governed here: they are checked to be Debian package
 * names only ({@link RuntimeDockerfile#requireValid}) and install from the base's own sources.
 */
public final class BuildScriptPolicy {

    public static final String SETTING = "dockyard.images.scripts";

    /** Who may run build scripts. */
    public enum Allowed { ADMINS, USERS, NONE }

    private final Allowed allowed;
    private final String configured;

    public BuildScriptPolicy(String configured) {
        this.configured = configured == null ? "admins" : configured.strip();
        Allowed parsed;
        try {
            parsed = Allowed.valueOf(this.configured.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            // a typo must not open scripts to everyone: nobody runs them until it is fixed
            parsed = null;
        }
        this.allowed = parsed;
    }

    /** The policy as configured now; the default where no MP Config runs (plain unit tests). */
    public static BuildScriptPolicy fromConfig() {
        String value;
        try {
            value = ConfigProvider.getConfig().getOptionalValue(SETTING, String.class).orElse("admins");
        } catch (IllegalStateException noConfig) {
            value = "admins";
        }
        return new BuildScriptPolicy(value);
    }

    /**
     * The API's check: throws {@code refused}'s exception when {@code extra} has a script that may
     * not run for this caller under the configured policy (only then is the configuration read).
     */
    public static void requireAllowed(boolean admin, ExtraDependencies extra,
                                      Function<String, ? extends RuntimeException> refused) {
        if (extra != null && !extra.script().isEmpty()) {
            fromConfig().require(admin, extra, refused);
        }
    }

    /** Throws {@code refused}'s exception (given the {@link #refusal}) when the script may not run. */
    public void require(boolean admin, ExtraDependencies extra, Function<String, ? extends RuntimeException> refused) {
        Optional<String> reason = refusal(admin, extra);
        if (reason.isPresent()) {
            throw refused.apply(reason.get());
        }
    }

    /**
     * Why this caller may not build an image from a build context of their own (OpenHands'
     * {@code /build}: its Dockerfile's steps run as root like a script), or empty when they may.
     */
    public Optional<String> refusalOfContextBuild(boolean admin) {
        if (allowed == null) {
            return Optional.of("image builds are refused: " + SETTING + "='" + configured
                    + "' is not one of admins, users, none");
        }
        return switch (allowed) {
            case USERS -> Optional.empty();
            case ADMINS -> admin ? Optional.empty() : Optional.of("image builds are refused: a build's steps run as "
                    + "root and " + SETTING + "=admins lets only admins build; ask an admin to build the image");
            case NONE -> Optional.of("image builds are refused: " + SETTING + "=none");
        };
    }

    /**
     * Why {@code extra}'s script may not run for this caller (a 403's detail naming the setting),
     * or empty when it may, or when there is no script.
     */
    public Optional<String> refusal(boolean admin, ExtraDependencies extra) {
        if (extra == null || extra.script().isEmpty()) {
            return Optional.empty();
        }
        if (allowed == null) {
            return Optional.of("extraDeps.script is refused: " + SETTING + "='" + configured
                    + "' is not one of admins, users, none, so no build scripts run");
        }
        return switch (allowed) {
            case USERS -> Optional.empty();
            case ADMINS -> admin ? Optional.empty() : Optional.of("extraDeps.script is refused: build scripts run as "
                    + "root in the image build and " + SETTING + "=admins lets only admins have them run; "
                    + "use extraDeps.apt for Debian packages, or an image an admin built");
            case NONE -> Optional.of("extraDeps.script is refused: " + SETTING + "=none, no build scripts run; "
                    + "use extraDeps.apt for Debian packages, or a base image that has what you need");
        };
    }
}
