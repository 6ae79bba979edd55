package org.mpirunft.membership.cli;

import java.net.InetSocketAddress;
import picocli.CommandLine;

/** Reads "host:port" (an IPv6 host in brackets: "[::1]:7800"). */
final class HostPortConverter implements CommandLine.ITypeConverter<InetSocketAddress> {
    @Override
    public InetSocketAddress convert(String value) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not host:port");
        }
        String host = value.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(value.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("'" + value + "': port is not a number");
        }
        if (port < 0 || port > 65535) {
            throw new CommandLine.TypeConversionException("'" + value + "': port must be in 0..65535");
        }
        return new InetSocketAddress(host, port);
    }
}
