package org.mpirunft.npb;

import java.io.PrintStream;
import java.util.List;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.storage.PartWrite;

/**
 * What {@code npb} reports of the rank library's events, as lines {@code npb-bench} reads
 * ({@link NpbReport}): a state transfer and a warm spare's release at once, on this process's
 * output (the replacement's, the spare's); part writes, with {@code NPB_WRITE_TIMES} set, kept
 * for the end of the run. The library prints none of them: the program decides what it reports.
 */
final class NpbListener implements RankListener {
    /** Null unless part writes are wanted: no clock is read per write otherwise. */
    private final PartWriteTimes writeTimes;
    /** This process's output: {@code System.out}, or a test's. */
    private final PrintStream out;

    NpbListener(boolean writeTimesWanted, PrintStream out) {
        this.writeTimes = writeTimesWanted ? new PartWriteTimes() : null;
        this.out = out;
    }

    @Override
    public void partWriteStarting(PartWrite.Op op, int rank, long epoch) {
        if (writeTimes != null) {
            writeTimes.partWriteStarting(op, rank, epoch);
        }
    }

    @Override
    public void partWritten(PartWrite write) {
        if (writeTimes != null) {
            writeTimes.partWritten(write);
        }
    }

    @Override
    public void stateTransferred(StateTransfer transfer) {
        out.println(NpbReport.stateTransferLine(transfer));
        out.flush();
    }

    @Override
    public void spareReleased(SpareRelease release) {
        // The process ends right after.
        out.println(NpbReport.spareReleasedLine(release));
        out.flush();
    }

    /** The part writes heard so far; none unless they were wanted. */
    List<PartWriteTimes.Timed> partWrites() {
        return writeTimes == null ? List.of() : writeTimes.writes();
    }
}
