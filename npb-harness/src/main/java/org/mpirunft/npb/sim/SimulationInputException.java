package org.mpirunft.npb.sim;

/** Bad input to the simulation (a missing file or column, a bad value); its message is the one line the user sees. */
public final class SimulationInputException extends RuntimeException {
    public SimulationInputException(String message) {
        super(message);
    }
}
