import java.io.ByteArrayInputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.IOException;

import org.apache.jute.BinaryInputArchive;

/**
 * A BinaryInputArchive whose readString inverts BinaryOutputArchive's
 * writeString exactly: every one-, two- or three-byte sequence becomes one
 * UTF-16 unit, so an encoded surrogate pair becomes the original
 * supplementary character again.
 *
 * ZooKeeper's own reader decodes with the JDK's UTF-8 decoder, which
 * rejects encoded surrogates and yields U+FFFD for each half. That is what
 * a Java server does with such a string; GoldenVectors needs the original
 * value back to describe the streams it reads, hence this class.
 */
final class UnitInputArchive extends BinaryInputArchive {
    private final DataInput in;

    private UnitInputArchive(DataInput in) {
        super(in);
        this.in = in;
    }

    static UnitInputArchive over(byte[] b) {
        return new UnitInputArchive(new DataInputStream(new ByteArrayInputStream(b)));
    }

    @Override
    public String readString(String tag) throws IOException {
        int n = in.readInt();
        if (n == -1) {
            return null;
        }
        if (n < 0) {
            throw new IOException(tag + ": bad length " + n);
        }
        byte[] b = new byte[n];
        in.readFully(b);
        StringBuilder s = new StringBuilder(n);
        for (int i = 0; i < n; ) {
            int c = b[i] & 0xff;
            if (c < 0x80) {
                s.append((char) c);
                i++;
            } else if ((c & 0xe0) == 0xc0 && i + 1 < n) {
                s.append((char) ((c & 0x1f) << 6 | (b[i + 1] & 0x3f)));
                i += 2;
            } else if ((c & 0xf0) == 0xe0 && i + 2 < n) {
                s.append((char) ((c & 0x0f) << 12 | (b[i + 1] & 0x3f) << 6 | (b[i + 2] & 0x3f)));
                i += 3;
            } else {
                throw new IOException(tag + ": byte " + c + " at " + i + " is not from Java's jute writer");
            }
        }
        return s.toString();
    }
}
