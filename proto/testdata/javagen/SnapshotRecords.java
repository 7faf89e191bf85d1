import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.apache.jute.Index;
import org.apache.jute.InputArchive;
import org.apache.jute.OutputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.StatPersisted;

/**
 * The snapshot structures that ZooKeeper writes by hand instead of from its
 * jute file, as Records whose tags are the field names of gozk's IDL
 * (proto/zookeeper.jute, module persistence). GoldenVectors checks every
 * value written through these against the real ZooKeeper code path before
 * it is saved, so the bytes are ZooKeeper's; only the tags are ours.
 */
final class SnapshotRecords {
    private SnapshotRecords() {
    }

    /**
     * A znode as a snapshot stores it: data, ACL cache key, stat. ZooKeeper's
     * server.DataNode tags the stat "statpersisted"; tags never reach the
     * bytes, and ours follow the IDL.
     */
    static final class DataNode implements Record {
        byte[] data;
        long acl;
        StatPersisted stat;

        public DataNode(byte[] data, long acl, StatPersisted stat) {
            this.data = data;
            this.acl = acl;
            this.stat = stat;
        }

        @Override
        public void serialize(OutputArchive a, String tag) throws IOException {
            a.startRecord(this, tag);
            a.writeBuffer(data, "data");
            a.writeLong(acl, "acl");
            a.writeRecord(stat, "stat");
            a.endRecord(this, tag);
        }

        @Override
        public void deserialize(InputArchive a, String tag) throws IOException {
            a.startRecord(tag);
            data = a.readBuffer("data");
            acl = a.readLong("acl");
            stat = new StatPersisted();
            a.readRecord(stat, "stat");
            a.endRecord(tag);
        }
    }

    /** One entry of the snapshot's ACL cache. */
    static final class ACLCacheEntry implements Record {
        long id;
        List<ACL> acl;

        public ACLCacheEntry(long id, List<ACL> acl) {
            this.id = id;
            this.acl = acl;
        }

        @Override
        public void serialize(OutputArchive a, String tag) throws IOException {
            a.startRecord(this, tag);
            a.writeLong(id, "id");
            a.startVector(acl, "acl");
            if (acl != null) {
                for (ACL e : acl) {
                    a.writeRecord(e, "e");
                }
            }
            a.endVector(acl, "acl");
            a.endRecord(this, tag);
        }

        @Override
        public void deserialize(InputArchive a, String tag) throws IOException {
            a.startRecord(tag);
            id = a.readLong("id");
            Index i = a.startVector("acl");
            if (i == null) {
                acl = null;
            } else {
                acl = new ArrayList<>();
                for (; !i.done(); i.incr()) {
                    ACL e = new ACL();
                    a.readRecord(e, "e");
                    acl.add(e);
                }
            }
            a.endVector("acl");
            a.endRecord(tag);
        }
    }

    /** One session of the snapshot's session table. */
    static final class SnapshotSession implements Record {
        long id;
        int timeout;

        public SnapshotSession(long id, int timeout) {
            this.id = id;
            this.timeout = timeout;
        }

        @Override
        public void serialize(OutputArchive a, String tag) throws IOException {
            a.startRecord(this, tag);
            a.writeLong(id, "id");
            a.writeInt(timeout, "timeout");
            a.endRecord(this, tag);
        }

        @Override
        public void deserialize(InputArchive a, String tag) throws IOException {
            a.startRecord(tag);
            id = a.readLong("id");
            timeout = a.readInt("timeout");
            a.endRecord(tag);
        }
    }

    /** The digest that seals a snapshot. */
    static final class ZxidDigest implements Record {
        long zxid;
        int digestVersion;
        long digest;

        public ZxidDigest(long zxid, int digestVersion, long digest) {
            this.zxid = zxid;
            this.digestVersion = digestVersion;
            this.digest = digest;
        }

        @Override
        public void serialize(OutputArchive a, String tag) throws IOException {
            a.startRecord(this, tag);
            a.writeLong(zxid, "zxid");
            a.writeInt(digestVersion, "digestVersion");
            a.writeLong(digest, "digest");
            a.endRecord(this, tag);
        }

        @Override
        public void deserialize(InputArchive a, String tag) throws IOException {
            a.startRecord(tag);
            zxid = a.readLong("zxid");
            digestVersion = a.readInt("digestVersion");
            digest = a.readLong("digest");
            a.endRecord(tag);
        }
    }
}
