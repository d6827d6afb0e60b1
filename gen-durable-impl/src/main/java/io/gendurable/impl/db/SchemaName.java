package io.gendurable.impl.db;

import java.util.regex.Pattern;

/**
 * The engine's schema name, validated as a plain SQL identifier so it can be spliced into the
 * static statement texts once at start-up.
 */
public record SchemaName(String name) {
    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    /** Validates the identifier. */
    public SchemaName {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException("gendurable.schema must be a lower-case SQL identifier "
                    + "([a-z_][a-z0-9_]{0,62}), got '" + name + "'");
        }
    }

    /** @param table a table or type name @return the schema-qualified name */
    public String qualify(String table) {
        return name + "." + table;
    }

    /** @return the qualified instance table */
    public String instances() {
        return qualify("gen_durable");
    }

    /** @return the qualified sequence of fencing tokens */
    public String claimTokens() {
        return qualify("gen_durable_claim_token");
    }

    /** @return the qualified status type */
    public String statusType() {
        return qualify("durable_status");
    }
}
