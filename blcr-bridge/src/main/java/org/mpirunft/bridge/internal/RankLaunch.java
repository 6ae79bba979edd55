package org.mpirunft.bridge.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.logging.Logger;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.BridgeException;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.ulfm.Pmix;
import org.mpirunft.common.Names;
import org.mpirunft.common.rank.RankMessage;

/**
 * Where a process of the job starts out, right after MPI_Init: the job's name, its warm spares
 * and this process's pairs with them, and the world it is in. A rank of the launch is in the
 * application's world (the launch's world without the warm spares); a spawned replacement, and
 * a warm spare once called, in the repaired world it joined ({@code joined}, else null). An idle
 * warm spare waits here, in {@link #start}, until it is called.
 */
record RankLaunch(String job, WarmSpares warm, SpareBridges bridges, Intracomm world, WorldRepair.Repaired joined) {
    private static final Logger LOG = Logger.getLogger(RankLaunch.class.getName());
    private static final int JOB_NAME_BYTES = 100;

    /** Takes this process's place: collective over the launch's world, spares included. */
    static RankLaunch start(FtConfig config, RankListener listener) throws MPIException {
        Intercomm parent = Intercomm.getParent();
        if (!parent.isNull()) {
            String job = config.job().orElseThrow(() -> new BridgeException("a replacement rank needs " + FtConfig.JOB));
            WarmSpares warm = config.warmTable().map(WarmSpares::decode).orElse(WarmSpares.NONE);
            return joined(job, warm, SpareBridges.NONE, WorldRepair.asReplacement(parent));
        }
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        String job = agreeOnJobName(config);
        WarmSpares warm = warmSparesOf(config);
        // Now, while every process of the launch is alive: a bridge with a failed process in it does not work.
        SpareBridges bridges = SpareBridges.create(warm);
        if (warm.isEmpty()) {
            return new RankLaunch(job, warm, bridges, MPI.COMM_WORLD, null);
        }
        // The application's world is the world without the spares.
        int worldRank = MPI.COMM_WORLD.getRank();
        boolean spare = worldRank >= warm.firstRank();
        Intracomm part = MPI.COMM_WORLD.split(spare ? 1 : 0, worldRank);
        part.setErrhandler(MPI.ERRORS_RETURN);
        if (spare) {
            return joined(job, warm, bridges, joinWhenCalled(job, worldRank, part, bridges, config, listener));
        }
        return new RankLaunch(job, warm, bridges, part, null);
    }

    private static RankLaunch joined(String job, WarmSpares warm, SpareBridges bridges, WorldRepair.Repaired joined) {
        return new RankLaunch(job, warm, bridges, joined.world(), joined);
    }

    /**
     * An idle warm spare's wait for its call, on its own connection to the node daemon's rank
     * channel (a spare hello: the daemon gives it its calls, the job's end and a stop, and counts
     * its end as no rank's failure). Once the spare took a rank, that connection ends on purpose
     * and the rank connects as any rank does. A spare that cannot reach its daemon cannot be
     * called: it waits for the job's end in MPI_Finalize, which every process of the job takes
     * part in, and mpirun ends it if the job ends otherwise. So does a spare of a job the
     * scheduler does not know (its welcome says so: plain mpirun given mpirun-ft's argv), whose
     * daemon would never call it nor tell it the job ended. A channel that gives up on its daemon
     * for good leaves the spare there too ({@link WarmSpareRank}).
     */
    private static WorldRepair.Repaired joinWhenCalled(String job, int worldRank, Intracomm spares, SpareBridges bridges,
                                                       FtConfig config, RankListener listener) throws MPIException {
        BlockingQueue<RankMessage> calls = new LinkedBlockingQueue<>();
        RankChannel spareChannel = null;
        try {
            spareChannel = config.rankSocket().map(socket -> RankChannel.connect(socket,
                    RankMessage.Hello.ofSpare(job, ProcessHandle.current().pid(), worldRank), RankRuntime.CHANNEL_BOUND,
                    calls::add)).orElse(null);
        } catch (BridgeException e) {
            LOG.warning(() -> "warm spare " + worldRank + ": " + e.getMessage());
        }
        if (spareChannel != null && !spareChannel.welcome().scheduled()) {
            LOG.info(() -> "warm spare " + worldRank + ": job " + job + " is not scheduled (launched without mpirun-ft), so no call"
                    + " can come; waiting for the job's end");
            spareChannel.close();
            WarmSpareRank.awaitJobEnd();
        }
        if (spareChannel == null) {
            LOG.warning(() -> "warm spare " + worldRank + ": no rank channel, so no call can reach it; waiting for the job's end");
            WarmSpareRank.awaitJobEnd();
        }
        WorldRepair.Repaired joined = WarmSpareRank.joinWhenCalled(worldRank, spares, bridges, config, listener, calls,
                spareChannel::isOpen);
        spareChannel.report(new RankMessage.Leaving(RankMessage.VERSION, job, RankMessage.Hello.NO_RANK, "it took a rank"));
        spareChannel.close();
        return joined;
    }

    /**
     * The job's warm spares: its last {@link FtConfig#warmSpares()} world ranks, with the node
     * each runs on (gathered, not assumed from the launch: the user's mapping options decide).
     * Collective over the world, spares included.
     */
    private static WarmSpares warmSparesOf(FtConfig config) throws MPIException {
        int count = config.warmSpares();
        if (count == 0) {
            return WarmSpares.NONE;
        }
        int size = MPI.COMM_WORLD.getSize();
        if (count >= size) {
            throw new BridgeException(FtConfig.WARM_SPARES + " is " + count + ", which leaves no application rank in a world of " + size);
        }
        byte[] all = new byte[size * Peer.NODE_BYTES];
        MPI.COMM_WORLD.allGather(Peer.thisNode(), Peer.NODE_BYTES, MPI.BYTE, all, Peer.NODE_BYTES, MPI.BYTE);
        List<String> nodes = new ArrayList<>();
        for (int r = size - count; r < size; r++) {
            nodes.add(Peer.node(all, r * Peer.NODE_BYTES));
        }
        return new WarmSpares(Pmix.self().nspace(), size - count, nodes);
    }

    private static String agreeOnJobName(FtConfig config) throws MPIException {
        if (config.job().isPresent()) {
            return config.job().get();
        }
        byte[] name = new byte[JOB_NAME_BYTES];
        if (MPI.COMM_WORLD.getRank() == 0) {
            String namespace = Optional.ofNullable(System.getenv("PMIX_NAMESPACE")).orElse("job-" + ProcessHandle.current().pid());
            byte[] sanitized = Names.sanitize(namespace).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(sanitized, 0, name, 0, Math.min(sanitized.length, JOB_NAME_BYTES));
        }
        MPI.COMM_WORLD.bcast(name, JOB_NAME_BYTES, MPI.BYTE, 0);
        return new String(name, StandardCharsets.US_ASCII).replace("\0", "");
    }
}
