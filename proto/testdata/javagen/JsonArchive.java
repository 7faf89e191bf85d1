import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.List;
import java.util.TreeMap;

import org.apache.jute.OutputArchive;
import org.apache.jute.Record;

/**
 * An OutputArchive that renders whatever a record serializes as JSON, so
 * that the keys are exactly the tags the record passes to the archive.
 *
 * Mapping: a record becomes an object, a vector an array (null for a null
 * vector), int, long and byte become exact JSON numbers, boolean becomes
 * true/false, a buffer becomes a base64 string (null for a null buffer) and
 * a string becomes a JSON string in which every char outside printable
 * ASCII is written as a backslash-u escape of its UTF-16 unit. Maps are not
 * used by any ZooKeeper record and are rejected.
 *
 * A value written while no record or vector is open is emitted on its own,
 * which lets callers render a bare primitive.
 */
final class JsonArchive implements OutputArchive {

    /** One open container: an object (keyed by tag) or an array. */
    private static final class Frame {
        final boolean object;
        boolean empty = true;

        Frame(boolean object) {
            this.object = object;
        }
    }

    private final StringBuilder out = new StringBuilder();
    private final Deque<Frame> stack = new ArrayDeque<>();
    private final boolean pretty;

    JsonArchive(boolean pretty) {
        this.pretty = pretty;
    }

    /** Renders rec as a JSON object. */
    static String render(Record rec, boolean pretty) throws IOException {
        JsonArchive a = new JsonArchive(pretty);
        rec.serialize(a, "");
        return a.result();
    }

    String result() {
        if (!stack.isEmpty()) {
            throw new IllegalStateException("unbalanced record or vector");
        }
        return out.toString();
    }

    private void newline() {
        if (pretty) {
            out.append('\n');
            for (int i = 0; i < stack.size(); i++) {
                out.append("  ");
            }
        }
    }

    /** Writes the separator and, inside an object, the key for tag. */
    private void prefix(String tag) {
        Frame f = stack.peek();
        if (f == null) {
            return;
        }
        if (!f.empty) {
            out.append(',');
        }
        f.empty = false;
        newline();
        if (f.object) {
            out.append(quote(tag)).append(pretty ? ": " : ":");
        }
    }

    private void open(char c, boolean object) {
        out.append(c);
        stack.push(new Frame(object));
    }

    private void close(char c) {
        Frame f = stack.pop();
        if (!f.empty) {
            newline();
        }
        out.append(c);
    }

    /** Quotes s as a JSON string; see the class comment for the escaping. */
    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2);
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c >= 0x20 && c <= 0x7e) {
                b.append(c);
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        return b.append('"').toString();
    }

    @Override
    public void writeByte(byte b, String tag) {
        prefix(tag);
        out.append(b);
    }

    @Override
    public void writeBool(boolean b, String tag) {
        prefix(tag);
        out.append(b);
    }

    @Override
    public void writeInt(int i, String tag) {
        prefix(tag);
        out.append(i);
    }

    @Override
    public void writeLong(long l, String tag) {
        prefix(tag);
        out.append(l);
    }

    @Override
    public void writeFloat(float f, String tag) {
        // No ZooKeeper record has a float; refuse rather than round.
        throw new UnsupportedOperationException("float field " + tag);
    }

    @Override
    public void writeDouble(double d, String tag) {
        throw new UnsupportedOperationException("double field " + tag);
    }

    @Override
    public void writeString(String s, String tag) {
        prefix(tag);
        out.append(s == null ? "null" : quote(s));
    }

    @Override
    public void writeBuffer(byte[] buf, String tag) {
        prefix(tag);
        out.append(buf == null ? "null" : quote(Base64.getEncoder().encodeToString(buf)));
    }

    @Override
    public void writeRecord(Record r, String tag) throws IOException {
        r.serialize(this, tag);
    }

    @Override
    public void startRecord(Record r, String tag) {
        prefix(tag);
        open('{', true);
    }

    @Override
    public void endRecord(Record r, String tag) {
        close('}');
    }

    @Override
    public void startVector(List<?> v, String tag) {
        prefix(tag);
        if (v == null) {
            // Generated code still calls endVector for a null vector, and
            // endVector below does nothing for null.
            out.append("null");
            return;
        }
        open('[', false);
    }

    @Override
    public void endVector(List<?> v, String tag) {
        if (v != null) {
            close(']');
        }
    }

    @Override
    public void startMap(TreeMap<?, ?> m, String tag) {
        throw new UnsupportedOperationException("map field " + tag);
    }

    @Override
    public void endMap(TreeMap<?, ?> m, String tag) {
        throw new UnsupportedOperationException("map field " + tag);
    }
}
