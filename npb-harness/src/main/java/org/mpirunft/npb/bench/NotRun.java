package org.mpirunft.npb.bench;

import java.util.List;

/**
 * Runs of the matrix that were not made because an earlier run of the same kernel, class and
 * node count showed that they do not fit this machine ({@link Fit}); listed in the results with
 * the reason instead of being dropped.
 *
 * @param variants the variants not run, once per repeat and storage configuration
 * @param shownBy  the job whose run showed it; its log is kept with the others
 * @param standIn  the class that ran in their place ({@code --stand-in}), null if none
 */
public record NotRun(String kernel, String cls, int nodes, List<String> variants, String reason, String shownBy, String standIn) {
    public NotRun {
        variants = List.copyOf(variants);
    }
}
