package org.mpirunft.launcher.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version Maven wrote into the jar. */
final class VersionProvider {
    private VersionProvider() {
    }

    static String version() {
        Properties properties = new Properties();
        try (InputStream in = VersionProvider.class.getResourceAsStream("/META-INF/maven/org.mpirunft/mpirun-ext/pom.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            // Unknown version, said below.
        }
        return "mpirun-ft " + properties.getProperty("version", "(version unknown: not run from its jar)");
    }
}
