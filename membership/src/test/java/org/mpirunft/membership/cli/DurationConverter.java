package org.mpirunft.membership.cli;

import java.time.Duration;
import org.mpirunft.common.BadValueException;
import org.mpirunft.common.Durations;
import picocli.CommandLine;

/** picocli's side of {@link Durations}, the one duration grammar: {@code 500ms}, {@code 2s}, {@code 1m}, {@code PT2S}. */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        try {
            return Durations.parse("duration", value);
        } catch (BadValueException e) {
            // picocli puts the option's name in front of this message.
            throw new CommandLine.TypeConversionException(e.problem());
        }
    }
}
