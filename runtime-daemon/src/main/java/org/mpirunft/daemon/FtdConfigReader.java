package org.mpirunft.daemon;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.NodeRole;

/**
 * Reads and validates a node daemon's config file:
 *
 * <pre>
 * version: 1
 * node:
 *   name: node1
 *   role: compute            # compute, spare or launcher
 *   slots: 1
 * group:
 *   cluster: mpirun-ft
 *   bind: 10.213.0.1
 *   port: 7800               # the group's port
 *   peer-port: 7801          # daemon-to-daemon requests
 *   members: [10.213.0.1:7800, 10.213.0.2:7800]
 *   secret-file: /etc/mpirun-ft/secret
 *   encryption: false
 *   profile: production      # or fast, for tests
 * control:
 *   socket: /run/mpirun-ft/ftd.sock
 * runtime:
 *   prted: /usr/bin/prted
 *   rank-control: /run/mpirun-ft/jobs
 *   state: /var/lib/mpirun-ft
 * scheduler: /etc/mpirun-ft/cluster.yaml   # optional
 * </pre>
 *
 * Every error names the file and the key, and unknown keys are errors: a misspelt key must not
 * fall back to a default in silence.
 */
public final class FtdConfigReader {
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Map<String, Set<String>> KEYS = Map.of(
            "", Set.of("version", "node", "group", "control", "runtime", "scheduler"),
            "node", Set.of("name", "role", "slots"),
            "group", Set.of("cluster", "bind", "port", "peer-port", "members", "secret-file", "encryption", "profile"),
            "control", Set.of("socket"),
            "runtime", Set.of("prted", "rank-control", "state"));
    private static final String NAME = "[A-Za-z0-9][A-Za-z0-9._-]{0,62}";

    private final String source;

    private FtdConfigReader(String source) {
        this.source = source;
    }

    public static FtdConfig read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read: " + e.getMessage());
        }
        return parse(text, file.toString());
    }

    public static FtdConfig parse(String yaml, String source) {
        return new FtdConfigReader(source).parse(yaml);
    }

    private FtdConfig parse(String yaml) {
        JsonNode root;
        try {
            root = YAML.readTree(yaml);
        } catch (JsonProcessingException e) {
            throw new ConfigException(source + ": not valid YAML: " + e.getOriginalMessage()
                    + (e.getLocation() != null ? " (line " + e.getLocation().getLineNr() + ")" : ""));
        }
        if (root == null || !root.isObject()) {
            throw new ConfigException(source + ": must be a YAML mapping with a 'version' key");
        }
        checkKeys(root, "");
        if (!root.path("version").isInt() || root.get("version").asInt() != FtdConfig.VERSION) {
            throw error("version", "must be " + FtdConfig.VERSION + ", got '" + text(root.get("version")) + "'");
        }
        JsonNode node = section(root, "node");
        String name = required(node, "node.name");
        if (!name.matches(NAME)) {
            throw error("node.name", "must be 1-63 characters of [A-Za-z0-9._-], got '" + name + "'");
        }
        NodeRole role = role(string(node, "node.role", "compute"));
        int slots = integer(node, "node.slots", role == NodeRole.LAUNCHER ? 0 : 1, 0, 4096);

        JsonNode group = section(root, "group");
        String cluster = string(group, "group.cluster", "mpirun-ft");
        if (!cluster.matches(NAME)) {
            throw error("group.cluster", "must be 1-63 characters of [A-Za-z0-9._-], got '" + cluster + "'");
        }
        InetAddress bind = address("group.bind", required(group, "group.bind"));
        int port = integer(group, "group.port", 7800, 1, 65535);
        int peerPort = integer(group, "group.peer-port", port + 1, 1, 65535);
        if (peerPort == port) {
            throw error("group.peer-port", "must differ from group.port (" + port + ")");
        }
        List<InetSocketAddress> members = members(group.get("members"), port);
        Path secretFile = absolute("group.secret-file", required(group, "group.secret-file"));
        boolean encryption = bool(group, "group.encryption", false);
        MembershipConfig.Profile profile = switch (string(group, "group.profile", "production").toLowerCase(Locale.ROOT)) {
            case "production" -> MembershipConfig.Profile.PRODUCTION;
            case "fast" -> MembershipConfig.Profile.FAST;
            default -> throw error("group.profile", "must be production or fast, got '" + string(group, "group.profile", "") + "'");
        };

        Path socket = absolute("control.socket", string(section(root, "control"), "control.socket", "/run/mpirun-ft/ftd.sock"));
        JsonNode runtime = section(root, "runtime");
        Path prted = absolute("runtime.prted", string(runtime, "runtime.prted", "/usr/bin/prted"));
        Path rankControl = absolute("runtime.rank-control", string(runtime, "runtime.rank-control", "/run/mpirun-ft/jobs"));
        Path state = absolute("runtime.state", string(runtime, "runtime.state", "/var/lib/mpirun-ft"));
        Optional<Path> scheduler = root.hasNonNull("scheduler")
                ? Optional.of(absolute("scheduler", string(root, "scheduler", ""))) : Optional.empty();
        return new FtdConfig(name, role, slots, cluster, bind, port, peerPort, members, secretFile, encryption, profile,
                socket, prted, rankControl, state, scheduler);
    }

    private NodeRole role(String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "compute" -> NodeRole.COMPUTE;
            case "spare" -> NodeRole.SPARE;
            case "launcher" -> NodeRole.LAUNCHER;
            default -> throw error("node.role", "must be compute, spare or launcher, got '" + value + "'");
        };
    }

    private List<InetSocketAddress> members(JsonNode list, int defaultPort) {
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw error("group.members", "must be a non-empty list of host[:port] (every node's group address)");
        }
        List<InetSocketAddress> members = new ArrayList<>();
        for (JsonNode entry : list) {
            String text = entry.asText().strip();
            int colon = text.lastIndexOf(':');
            String host = colon < 0 ? text : text.substring(0, colon);
            int port = defaultPort;
            if (colon >= 0) {
                try {
                    port = Integer.parseInt(text.substring(colon + 1));
                } catch (NumberFormatException e) {
                    port = -1;
                }
                if (port < 1 || port > 65535) {
                    throw error("group.members", "'" + text + "' has no valid port");
                }
            }
            members.add(new InetSocketAddress(address("group.members", host), port));
        }
        return members;
    }

    private void checkKeys(JsonNode node, String path) {
        Set<String> known = KEYS.get(path);
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            String key = path.isEmpty() ? name : path + "." + name;
            if (!known.contains(name)) {
                throw error(key, "unknown key (known here: " + String.join(", ", known.stream().sorted().toList()) + ")");
            }
            if (KEYS.containsKey(key)) {
                JsonNode child = node.get(name);
                if (!child.isObject()) {
                    throw error(key, "must be a mapping, got '" + text(child) + "'");
                }
                checkKeys(child, key);
            }
        }
    }

    private static JsonNode section(JsonNode root, String name) {
        JsonNode node = root.get(name);
        return node == null || node.isNull() ? YAML.createObjectNode() : node;
    }

    private String required(JsonNode section, String key) {
        String value = string(section, key, "");
        if (value.isEmpty()) {
            throw error(key, "is required");
        }
        return value;
    }

    private String string(JsonNode section, String key, String absent) {
        JsonNode node = section.get(key.substring(key.lastIndexOf('.') + 1));
        if (node == null || node.isNull()) {
            return absent;
        }
        if (!node.isValueNode()) {
            throw error(key, "must be a single value, got '" + text(node) + "'");
        }
        return node.asText().strip();
    }

    private int integer(JsonNode section, String key, int absent, int min, int max) {
        JsonNode node = section.get(key.substring(key.lastIndexOf('.') + 1));
        if (node == null || node.isNull()) {
            return absent;
        }
        if (!node.isInt() || node.asInt() < min || node.asInt() > max) {
            throw error(key, "must be an integer in " + min + ".." + max + ", got '" + text(node) + "'");
        }
        return node.asInt();
    }

    private boolean bool(JsonNode section, String key, boolean absent) {
        JsonNode node = section.get(key.substring(key.lastIndexOf('.') + 1));
        if (node == null || node.isNull()) {
            return absent;
        }
        if (!node.isBoolean()) {
            throw error(key, "must be true or false, got '" + text(node) + "'");
        }
        return node.asBoolean();
    }

    private InetAddress address(String key, String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw error(key, "cannot resolve host '" + host + "'");
        }
    }

    private Path absolute(String key, String value) {
        Path path = Path.of(value);
        if (!path.isAbsolute()) {
            throw error(key, "must be an absolute path, got '" + value + "'");
        }
        return path;
    }

    private ConfigException error(String key, String problem) {
        return new ConfigException(source + ": " + key + ": " + problem);
    }

    private static String text(JsonNode node) {
        return node == null ? "" : node.isValueNode() ? node.asText() : node.toString();
    }

    /** A config file that cannot be used; the message names the file, the key and the problem. */
    public static final class ConfigException extends DaemonException {
        private static final long serialVersionUID = 1L;

        public ConfigException(String message) {
            super(message);
        }
    }
}
