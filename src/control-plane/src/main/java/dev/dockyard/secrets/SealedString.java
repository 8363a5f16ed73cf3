package dev.dockyard.secrets;

import jakarta.persistence.AttributeConverter;
import jakarta.persistence.Converter;

/** Stores a string attribute sealed by {@link SecretBox}: the column never holds the secret in clear. */
@Converter
public class SealedString implements AttributeConverter<String, String> {

    @Override
    public String convertToDatabaseColumn(String plain) {
        return SecretBox.seal(plain);
    }

    @Override
    public String convertToEntityAttribute(String stored) {
        return SecretBox.open(stored);
    }
}
