// A small JSON reader and string quoting for the Java side of assigncheck (the `java:` bridge and the benchmark):
// kafka-clients brings no JSON library, and the bridge must compile against any classpath.

package io.assigncheck.bridge;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A small JSON reader (objects keep their key order; integers are Long, other numbers Double). */
public final class AssigncheckJson {
    private final String s;
    private int i;

    public AssigncheckJson(String s) { this.s = s; }

    public Object parse() {
        Object v = value();
        skip();
        if (i != s.length()) throw error("trailing characters");
        return v;
    }

    private Object value() {
        skip();
        if (i >= s.length()) throw error("unexpected end");
        char ch = s.charAt(i);
        if (ch == '{') return object();
        if (ch == '[') return array();
        if (ch == '"') return string();
        if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
        if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
        if (s.startsWith("null", i)) { i += 4; return null; }
        int start = i;
        boolean integer = true;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
            if (".eE".indexOf(s.charAt(i)) >= 0) integer = false;
            i++;
        }
        if (start == i) throw error("unexpected character");
        String text = s.substring(start, i);
        return integer ? (Object) Long.valueOf(text) : (Object) Double.valueOf(text);
    }

    private Map<String, Object> object() {
        Map<String, Object> m = new LinkedHashMap<>();
        i++;
        skip();
        if (peek() == '}') { i++; return m; }
        while (true) {
            skip();
            if (peek() != '"') throw error("expected a key");
            String key = string();
            skip();
            if (peek() != ':') throw error("expected ':'");
            i++;
            m.put(key, value());
            skip();
            char ch = next();
            if (ch == '}') return m;
            if (ch != ',') throw error("expected ',' or '}'");
        }
    }

    private List<Object> array() {
        List<Object> a = new ArrayList<>();
        i++;
        skip();
        if (peek() == ']') { i++; return a; }
        while (true) {
            a.add(value());
            skip();
            char ch = next();
            if (ch == ']') return a;
            if (ch != ',') throw error("expected ',' or ']'");
        }
    }

    private String string() {
        StringBuilder b = new StringBuilder();
        i++;
        while (true) {
            char ch = next();
            if (ch == '"') return b.toString();
            if (ch != '\\') { b.append(ch); continue; }
            char e = next();
            switch (e) {
                case 'n': b.append('\n'); break;
                case 't': b.append('\t'); break;
                case 'r': b.append('\r'); break;
                case 'b': b.append('\b'); break;
                case 'f': b.append('\f'); break;
                case 'u':
                    if (i + 4 > s.length()) throw error("short \\u escape");
                    b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                    break;
                default: b.append(e);
            }
        }
    }

    private char peek() {
        if (i >= s.length()) throw error("unexpected end");
        return s.charAt(i);
    }

    private char next() {
        char ch = peek();
        i++;
        return ch;
    }

    private void skip() { while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++; }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("malformed JSON at character " + i + ": " + what);
    }

    public static String quote(String v) {
        StringBuilder b = new StringBuilder(v.length() + 2).append('"');
        for (int k = 0; k < v.length(); k++) {
            char ch = v.charAt(k);
            if (ch == '"' || ch == '\\') b.append('\\').append(ch);
            else if (ch < 0x20 || (ch >= 0xd800 && ch <= 0xdfff && !pairedSurrogate(v, k)))
                b.append(String.format("\\u%04x", (int) ch));
            else b.append(ch);
        }
        return b.append('"').toString();
    }

    private static boolean pairedSurrogate(String v, int k) {
        char ch = v.charAt(k);
        if (Character.isHighSurrogate(ch)) return k + 1 < v.length() && Character.isLowSurrogate(v.charAt(k + 1));
        return k > 0 && Character.isHighSurrogate(v.charAt(k - 1));
    }
}
