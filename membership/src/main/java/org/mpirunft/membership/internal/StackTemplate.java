package org.mpirunft.membership.internal;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.jgroups.conf.ProtocolConfiguration;
import org.jgroups.conf.XmlConfigurator;
import org.mpirunft.membership.StackFileException;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * A JGroups stack in JGroups' own XML form, read by JGroups' {@link XmlConfigurator}, with
 * {@code ${name}} and {@code ${name:default}} variables in its attribute values that
 * {@link #substitute} fills in from one member's values. JGroups would fill them in from system
 * properties, which all members of one JVM share (the tests run several, the benchmark many):
 * here a variable that the member's values lack and that gives no default is an error naming it
 * and the file. Not thread-safe: one instance per member start.
 */
final class StackTemplate {
    /** The stack shipped in this module's jar. */
    static final String SHIPPED = "/org/mpirunft/membership/ftd-stack.xml";

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([^}:]*)(?::([^}]*))?}");

    private final String source;
    private final List<ProtocolConfiguration> protocols;

    private StackTemplate(String source, List<ProtocolConfiguration> protocols) {
        this.source = source;
        this.protocols = new ArrayList<>(protocols);
    }

    static StackTemplate shipped() {
        return parse(shippedText().getBytes(StandardCharsets.UTF_8), "classpath:" + SHIPPED);
    }

    static StackTemplate read(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new StackFileException(file.toString(), Files.exists(file) ? "not a regular file" : "no such file", null);
        }
        byte[] xml;
        try {
            xml = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new StackFileException(file.toString(), "cannot read it: "
                    + (e instanceof AccessDeniedException ? "permission denied" : e.toString()), e);
        }
        return parse(xml, file.toString());
    }

    /** The shipped stack's text, comments included, for operators to copy. */
    static String shippedText() {
        try (InputStream in = StackTemplate.class.getResourceAsStream(SHIPPED)) {
            if (in == null) {
                throw new StackFileException("classpath:" + SHIPPED, "not found in the membership jar", null);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new StackFileException("classpath:" + SHIPPED, "cannot read it: " + e.getMessage(), e);
        }
    }

    private static StackTemplate parse(byte[] xml, String source) {
        requireConfigDocument(xml, source);
        List<ProtocolConfiguration> protocols;
        try {
            protocols = XmlConfigurator.getInstance(new ByteArrayInputStream(xml)).getProtocolStack();
        } catch (Exception e) {
            throw new StackFileException(source, "not a JGroups stack: " + oneLine(e), e);
        }
        return new StackTemplate(source, protocols);
    }

    /**
     * JGroups' own parser reports a document that is not a stack with its internals (a null
     * pointer); the JDK's parser says what is wrong and where. No DTDs: the file needs none.
     */
    private static void requireConfigDocument(byte[] xml, String source) {
        Element root;
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setNamespaceAware(true);
            DocumentBuilder builder = factory.newDocumentBuilder();
            builder.setErrorHandler(null); // errors are thrown, not also printed
            root = builder.parse(new ByteArrayInputStream(xml)).getDocumentElement();
        } catch (SAXParseException e) {
            throw new StackFileException(source, "not a JGroups stack: not well-formed XML: " + e.getMessage()
                    + " (line " + e.getLineNumber() + ")", e);
        } catch (ParserConfigurationException | SAXException | IOException e) {
            throw new StackFileException(source, "not a JGroups stack: " + oneLine(e), e);
        }
        if (!"config".equals(root.getLocalName())) {
            throw new StackFileException(source, "not a JGroups stack: the root element is <" + root.getTagName()
                    + ">, not <config>", null);
        }
        for (Node child = root.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child.getNodeType() == Node.ELEMENT_NODE) {
                return;
            }
        }
        throw new StackFileException(source, "not a JGroups stack: <config> lists no protocol", null);
    }

    String source() {
        return source;
    }

    /** The protocols, bottom to top, as they stand. */
    List<ProtocolConfiguration> protocols() {
        return List.copyOf(protocols);
    }

    /** Whether the stack has a protocol of this class name (simple or fully qualified). */
    boolean has(String protocol) {
        return indexOf(protocol) >= 0;
    }

    /** Fails, naming the file, unless the stack has this protocol; {@code why} says what it is needed for. */
    void require(String protocol, String why) {
        if (!has(protocol)) {
            throw new StackFileException(source, "has no " + protocol + ", which " + why, null);
        }
    }

    void remove(String protocol) {
        int index = indexOf(protocol);
        if (index >= 0) {
            protocols.remove(index);
        }
    }

    /** Puts {@code replacement} in the place of {@code protocol}, if the stack has it. */
    void replace(String protocol, ProtocolConfiguration replacement) {
        int index = indexOf(protocol);
        if (index >= 0) {
            protocols.set(index, replacement);
        }
    }

    /** Fills in every variable of every attribute value from {@code values}. */
    void substitute(Map<String, String> values) {
        for (int i = 0; i < protocols.size(); i++) {
            ProtocolConfiguration config = protocols.get(i);
            Map<String, String> properties = new LinkedHashMap<>();
            config.getProperties().forEach((name, value) ->
                    properties.put(name, substitute(value, values, simpleName(config.getProtocolName()) + " " + name)));
            ProtocolConfiguration filled = new ProtocolConfiguration(config.getProtocolName(), properties, config.getClassLoader());
            if (config.getSubtrees() != null) {
                config.getSubtrees().forEach(filled::addSubtree);
            }
            protocols.set(i, filled);
        }
    }

    private String substitute(String value, Map<String, String> values, String where) {
        if (value == null || !value.contains("${")) {
            return value;
        }
        Matcher m = VARIABLE.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1).strip();
            String replacement = values.get(name);
            if (replacement == null) {
                replacement = m.group(2);
            }
            if (replacement == null) {
                throw new StackFileException(source, "unknown variable ${" + name + "} in " + where
                        + " (known: " + String.join(", ", new TreeSet<>(values.keySet())) + "; or give a default, ${" + name
                        + ":value})", null);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        if (out.indexOf("${") >= 0) {
            throw new StackFileException(source, "malformed variable in " + where + ": '" + value + "'", null);
        }
        return out.toString();
    }

    private int indexOf(String protocol) {
        String wanted = simpleName(protocol);
        for (int i = 0; i < protocols.size(); i++) {
            if (simpleName(protocols.get(i).getProtocolName()).equals(wanted)) {
                return i;
            }
        }
        return -1;
    }

    /** {@code pbcast.GMS} and {@code org.jgroups.protocols.pbcast.GMS} are both {@code GMS}. */
    static String simpleName(String protocolName) {
        return protocolName.substring(protocolName.lastIndexOf('.') + 1);
    }

    static String oneLine(Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return message.lines().map(String::strip).filter(line -> !line.isEmpty()).reduce((a, b) -> a + " " + b).orElse(message);
    }
}
