package org.mpirunft.daemon.cli;

import java.util.Locale;
import org.mpirunft.daemon.protocol.ControlReply;

/** {@code ftd status} for people. */
final class StatusTable {
    private StatusTable() {
    }

    static String render(ControlReply.StatusReport report) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "node %s (%s)%s, view %d with %d members, scheduler leader %s%n", report.node(),
                report.role(), report.fenced() ? " FENCED" : report.joined() ? "" : " not joined", report.viewId(),
                report.members().size(), report.leader().isEmpty() ? "-" : report.leader()));
        if (!report.logVoters().isEmpty()) {
            out.append(String.format(Locale.ROOT, "replicated log: term %d, voters %s%n", report.logTerm(), String.join(", ", report.logVoters())));
        }
        out.append(String.format(Locale.ROOT, "%-12s %-9s %5s %7s %6s  %-21s %s%n", "MEMBER", "ROLE", "SLOTS", "IN-USE", "LOAD", "ENDPOINT",
                "STATE"));
        for (ControlReply.MemberStatus m : report.members()) {
            out.append(String.format(Locale.ROOT, "%-12s %-9s %5d %7d %6s  %-21s %s%n", m.name(), m.role(), m.slots(), m.slotsInUse(),
                    m.loadAverage() < 0 ? "-" : String.format(Locale.ROOT, "%.2f", m.loadAverage()), m.endpoint(),
                    m.drain().isEmpty() ? "in service" : "drained (" + m.drain() + ")"));
        }
        out.append(String.format(Locale.ROOT, "job processes on this node: %d%n", report.processes().size()));
        for (ControlReply.ProcessStatus p : report.processes()) {
            out.append(String.format(Locale.ROOT, "  %-8d %-16s %s%n", p.pid(), p.command(), p.job()));
        }
        for (ControlReply.JobStatus job : report.jobs()) {
            out.append(String.format(Locale.ROOT, "job %s from %s: %s (%s, checkpoints %s), ranks on %s, committed epoch %d%s%s%n",
                    job.job(), job.launcher(), job.state(), job.mode(), job.schedule(), String.join(",", job.rankNodes()),
                    job.committedEpoch(), job.failureId().isEmpty() ? "" : ", repairing " + job.failureId() + " onto " + job.placement(),
                    job.stopReason().isEmpty() ? "" : ", stopped: " + job.stopReason()));
        }
        return out.toString();
    }
}
