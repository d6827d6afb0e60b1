package io.gendurable.impl.db;

import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.SharedCacheMode;
import jakarta.persistence.ValidationMode;
import jakarta.persistence.spi.ClassTransformer;
import jakarta.persistence.spi.PersistenceUnitInfo;
import jakarta.persistence.spi.PersistenceUnitTransactionType;
import java.util.HashMap;
import org.hibernate.jpa.HibernatePersistenceProvider;

import javax.sql.DataSource;
import java.net.URL;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Bootstraps the engine's own persistence unit programmatically: resource-local on the
 * engine's DataSource, so it never enlists in a caller's JTA transaction and needs no
 * {@code persistence.xml} for the container to process (no class transformer, no scanning).
 */
public final class EnginePersistence {
    /** The persistence unit's name, as shown in Hibernate's logs. */
    public static final String UNIT = "gendurable";

    private EnginePersistence() {
    }

    /** @return the engine's entity manager factory on {@code dataSource}, tables in {@code schema} */
    public static EntityManagerFactory create(DataSource dataSource, SchemaName schema) {
        Map<String, Object> settings = new HashMap<>(HiddenSettings.masks(System.getProperties()));
        settings.putAll(Map.of(
                "hibernate.default_schema", schema.name(),
                // No JDBC metadata at boot: name the database instead of a dialect class (which logs HHH90000025).
                "jakarta.persistence.database-product-name", "PostgreSQL",
                "jakarta.persistence.database-major-version", "12",
                "hibernate.hbm2ddl.auto", "none",
                "hibernate.boot.allow_jdbc_metadata_access", "false",
                "hibernate.transaction.jta.platform", "org.hibernate.engine.transaction.jta.platform.internal.NoJtaPlatform",
                "hibernate.query.plan_cache_enabled", "true"));
        return new HibernatePersistenceProvider().createContainerEntityManagerFactory(new Unit(dataSource), settings);
    }

    private record Unit(DataSource dataSource) implements PersistenceUnitInfo {
        @Override public String getPersistenceUnitName() { return UNIT; }
        @Override public String getPersistenceProviderClassName() { return HibernatePersistenceProvider.class.getName(); }
        @Override public PersistenceUnitTransactionType getTransactionType() { return PersistenceUnitTransactionType.RESOURCE_LOCAL; }
        @Override public DataSource getJtaDataSource() { return null; }
        @Override public DataSource getNonJtaDataSource() { return dataSource; }
        @Override public List<String> getMappingFileNames() { return List.of(); }
        @Override public List<URL> getJarFileUrls() { return List.of(); }
        @Override public URL getPersistenceUnitRootUrl() { return null; }
        @Override public List<String> getManagedClassNames() { return List.of(InstanceRow.class.getName()); }
        @Override public boolean excludeUnlistedClasses() { return true; }
        @Override public SharedCacheMode getSharedCacheMode() { return SharedCacheMode.NONE; }
        @Override public ValidationMode getValidationMode() { return ValidationMode.NONE; }
        @Override public Properties getProperties() { return new Properties(); }
        @Override public String getPersistenceXMLSchemaVersion() { return "3.1"; }
        @Override public ClassLoader getClassLoader() { return EnginePersistence.class.getClassLoader(); }
        @Override public void addTransformer(ClassTransformer transformer) { }
        @Override public ClassLoader getNewTempClassLoader() { return null; }
    }
}
