package org.mpirunft.npb.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * NPB's verification block in one run's output: the closing report rank 0 prints
 * ({@code NpbReport.format}), from the kernel's verification values (" Benchmark completed", " L2 Norm
 * is", " Verification being performed for class", ...) through " VERIFICATION SUCCESSFUL" and the
 * class, size and iterations lines to " Verification    =    SUCCESSFUL". Its lines are copied
 * verbatim; the verdict is {@link NpbOutput#verified()}'s, read from the same lines.
 *
 * @param lines    the report's lines in output order (every report of the run, if it printed several); empty if none
 * @param verified the run's verdict as {@link NpbOutput} reads it
 */
record VerificationBlock(List<String> lines, boolean verified) {
    /**
     * The report's last line. Only where the block ends is read here: whether it says SUCCESSFUL
     * is {@link NpbOutput}'s to read.
     */
    private static final Pattern LAST_LINE = Pattern.compile("^ Verification\\s+=");

    VerificationBlock {
        lines = List.copyOf(lines);
    }

    /**
     * The block of {@code output}. A report starts after rank 0's last progress line ({@code [npb]
     * iteration}) or the job's last NPB banner before it, whichever is later. Of the lines between, only
     * NPB's own are kept: NPB indents every line of its report, while the lines other processes
     * print into the same output (other ranks' part writes, mpirun-ft's and the daemons' messages)
     * start with a bracketed tag.
     */
    static VerificationBlock of(NpbOutput output) {
        List<TimedLine> all = output.lines();
        java.util.Set<Integer> banners = new java.util.HashSet<>();
        for (int n = 1; output.headerIndex(n).isPresent(); n++) {
            banners.add(output.headerIndex(n).getAsInt());
        }
        List<String> block = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < all.size(); i++) {
            String text = all.get(i).text();
            if (NpbOutput.iterationOf(text) >= 0 || banners.contains(i)) {
                start = i + 1;
            } else if (LAST_LINE.matcher(text).find()) {
                List<String> report = all.subList(start, i + 1).stream().map(TimedLine::text).filter(VerificationBlock::isNpbLine)
                        .toList();
                // NPB prints a blank line after its banner and its header: leading ones are not the report's.
                block.addAll(report.subList((int) report.stream().takeWhile(String::isEmpty).count(), report.size()));
                start = i + 1;
            }
        }
        return new VerificationBlock(block, output.verified());
    }

    /** Whether the run printed a verification block at all. */
    boolean present() {
        return !lines.isEmpty();
    }

    private static boolean isNpbLine(String line) {
        return line.isEmpty() || line.startsWith(" ");
    }
}
