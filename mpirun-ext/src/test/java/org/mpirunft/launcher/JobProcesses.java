package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The processes of a job on this host, as {@code /proc} shows them: those whose environment
 * carries the job's tag ({@code MPIRUN_FT_JOB}), which every node daemon and rank inherits. The
 * simulated nodes share the host's PID namespace, so one look covers every node.
 */
final class JobProcesses {
    private JobProcesses() {
    }

    /** One process: its PID, its name and its {@code /proc/PID/status}. */
    record Process(long pid, String name, String status) {
        String field(String name) {
            return JobProcesses.field(status, name);
        }

        /** It runs with {@code uid} and {@code gid} (real, effective, saved, file system), not root's, and no capability. */
        void assertRunsAs(String uid, String gid, String where) {
            assertEquals(List.of(uid, uid, uid, uid), List.of(field("Uid").split("\\s+")), where + " runs as uid " + uid);
            assertEquals(List.of(gid, gid, gid, gid), List.of(field("Gid").split("\\s+")), where + "'s group");
            assertEquals("0000000000000000", field("CapEff"), where + " has no capability");
            assertNotEquals("0", uid);
        }
    }

    static List<Process> of(String job) throws IOException {
        List<Process> processes = new ArrayList<>();
        try (Stream<Path> all = Files.list(Path.of("/proc"))) {
            for (Path proc : all.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                Optional<String> status = read(proc.resolve("status"));
                Optional<String> environment = read(proc.resolve("environ"));
                if (status.isPresent() && environment.isPresent() && ("\0" + environment.get()).contains("\0MPIRUN_FT_JOB=" + job + "\0")) {
                    processes.add(new Process(Long.parseLong(proc.getFileName().toString()), field(status.get(), "Name"), status.get()));
                }
            }
        }
        return processes;
    }

    /** A {@code /proc/PID/status} field's value. */
    static String field(String status, String name) {
        return status.lines().filter(l -> l.startsWith(name + ":")).findFirst().map(l -> l.substring(name.length() + 1).strip())
                .orElseThrow(() -> new AssertionError("no " + name + " in " + status));
    }

    private static Optional<String> read(Path file) {
        try {
            return Optional.of(new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
        } catch (IOException gone) {
            return Optional.empty(); // the process ended meanwhile
        }
    }
}
