// An outside target in another language: Kafka's range assignor over assigncheck's JSON-lines protocol v1.
// Reads one problem document per line on stdin, writes one assignment document per line on stdout.
// Build and check:  javac -d build RangeAssignor.java
//                   assigncheck gate --target "cmd:java -cp build RangeAssignor" --promises exact=range
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

public final class RangeAssignor {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) continue;
            try {
                out.println(assign((Map<?, ?>) new Json(line).value()));
            } catch (RuntimeException e) {
                out.println("{\"format\":1,\"error\":" + Json.quote(String.valueOf(e)) + "}");
            }
        }
    }

    /** Per topic: subscribers ordered static first (by instance id), then by member id; contiguous ranges. */
    static String assign(Map<?, ?> problem) {
        Map<?, ?> topics = (Map<?, ?>) problem.get("topics");
        List<?> members = (List<?>) problem.get("members");
        Map<String, Map<String, List<Long>>> result = new LinkedHashMap<>();
        TreeMap<String, List<Map<?, ?>>> subscribers = new TreeMap<>();
        for (Object o : members) {
            Map<?, ?> m = (Map<?, ?>) o;
            result.put((String) m.get("id"), new TreeMap<>());
            for (Object t : (List<?>) m.get("subscription")) {
                subscribers.computeIfAbsent((String) t, k -> new ArrayList<>()).add(m);
            }
        }
        for (Map.Entry<String, List<Map<?, ?>>> e : subscribers.entrySet()) {
            Object count = topics.get(e.getKey());
            if (count == null) continue;  // subscribed topic missing from the metadata
            List<Map<?, ?>> subs = e.getValue();
            subs.sort(RangeAssignor::compareMembers);
            long n = (Long) count, c = subs.size(), quota = n / c, extra = n % c;
            for (int i = 0; i < c; i++) {
                long start = i * quota + Math.min(i, extra), len = quota + (i < extra ? 1 : 0);
                List<Long> mine = new ArrayList<>();
                for (long p = start; p < start + len; p++) mine.add(p);
                if (!mine.isEmpty()) result.get((String) subs.get(i).get("id")).put(e.getKey(), mine);
            }
        }
        StringBuilder sb = new StringBuilder("{\"format\":1,\"assignment\":{");
        boolean firstMember = true;
        for (Map.Entry<String, Map<String, List<Long>>> m : result.entrySet()) {
            if (!firstMember) sb.append(',');
            firstMember = false;
            sb.append(Json.quote(m.getKey())).append(":{");
            boolean firstTopic = true;
            for (Map.Entry<String, List<Long>> t : m.getValue().entrySet()) {
                if (!firstTopic) sb.append(',');
                firstTopic = false;
                sb.append(Json.quote(t.getKey())).append(':').append(t.getValue().toString().replace(" ", ""));
            }
            sb.append('}');
        }
        return sb.append("}}").toString();
    }

    static int compareMembers(Map<?, ?> a, Map<?, ?> b) {
        String ia = (String) a.get("instance_id"), ib = (String) b.get("instance_id");
        if ((ia == null) != (ib == null)) return ia != null ? -1 : 1;
        if (ia != null && !ia.equals(ib)) return ia.compareTo(ib);
        return ((String) a.get("id")).compareTo((String) b.get("id"));
    }

    /** A minimal JSON reader: objects, arrays, strings, integers, true/false/null. */
    static final class Json {
        private final String s;
        private int i;

        Json(String s) { this.s = s; }

        Object value() {
            skip();
            char ch = s.charAt(i);
            if (ch == '{') return object();
            if (ch == '[') return array();
            if (ch == '"') return string();
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return null; }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            return Long.parseLong(s.substring(start, i));
        }

        private Map<String, Object> object() {
            Map<String, Object> m = new LinkedHashMap<>();
            i++;
            skip();
            if (s.charAt(i) == '}') { i++; return m; }
            while (true) {
                skip();
                String key = string();
                skip();
                i++;  // ':'
                m.put(key, value());
                skip();
                if (s.charAt(i++) == '}') return m;
            }
        }

        private List<Object> array() {
            List<Object> a = new ArrayList<>();
            i++;
            skip();
            if (s.charAt(i) == ']') { i++; return a; }
            while (true) {
                a.add(value());
                skip();
                if (s.charAt(i++) == ']') return a;
            }
        }

        private String string() {
            StringBuilder b = new StringBuilder();
            i++;
            while (s.charAt(i) != '"') {
                char ch = s.charAt(i++);
                if (ch == '\\') {
                    char e = s.charAt(i++);
                    switch (e) {
                        case 'n': b.append('\n'); break;
                        case 't': b.append('\t'); break;
                        case 'r': b.append('\r'); break;
                        case 'b': b.append('\b'); break;
                        case 'f': b.append('\f'); break;
                        case 'u': b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                        default: b.append(e);
                    }
                } else {
                    b.append(ch);
                }
            }
            i++;
            return b.toString();
        }

        private void skip() { while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++; }

        static String quote(String v) {
            StringBuilder b = new StringBuilder("\"");
            for (char ch : v.toCharArray()) {
                if (ch == '"' || ch == '\\') b.append('\\').append(ch);
                else if (ch < 0x20) b.append(String.format("\\u%04x", (int) ch));
                else b.append(ch);
            }
            return b.append('"').toString();
        }
    }
}
