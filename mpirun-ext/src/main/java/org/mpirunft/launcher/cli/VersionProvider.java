package org.mpirunft.launcher.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** The version Maven wrote into the jar. */
final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        Properties properties = new Properties();
        try (InputStream in = VersionProvider.class.getResourceAsStream("/META-INF/maven/org.mpirunft/mpirun-ext/pom.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            // Unknown version, said below.
        }
        return new String[] {"mpirun-ft " + properties.getProperty("version", "(version unknown: not run from its jar)")};
    }
}
