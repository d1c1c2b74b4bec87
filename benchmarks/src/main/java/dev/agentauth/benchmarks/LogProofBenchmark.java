package dev.agentauth.benchmarks;

import dev.agentauth.server.log.LogTree;
import dev.agentauth.server.store.LogTx.Node;
import dev.agentauth.server.store.LogTx.NodeId;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import dev.agentauth.verifier.log.LogHash;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Inclusion and consistency proofs of a receipt log of 1,000,000 leaves on the SQLite store, as
 * {@code GET /v1/log/proof/inclusion} computes them: the proof's ranges ({@link LogTree}), one
 * {@code logNodes} query for the O(log n) perfect-subtree hashes they need, and the hashing. The
 * node table is written directly (not through checks), leaf hashes being hashes of the leaf index.
 * Sample time, so JMH reports p50/p99; target p99 ≤ 5 ms for an inclusion proof.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
@Fork(1)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
public class LogProofBenchmark {
  static final String WS = "ws_bench";
  static final long SIZE = 1_000_000;

  private Path dir;
  private Store store;

  @Setup(Level.Trial)
  public void build() throws Exception {
    dir = Files.createTempDirectory("agentauth-log-bench");
    Path db = dir.resolve("log.db");
    MasterKey key = MasterKey.random();
    JdbcStore.sqlite(db, key).close(); // creates the schema
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
      c.setAutoCommit(false);
      Map<NodeId, byte[]> frontier = new HashMap<>();
      long size = 0;
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO log_nodes (workspace_id, level, idx, hash) VALUES (?, ?, ?, ?)")) {
        while (size < SIZE) {
          int batch = (int) Math.min(65_536, SIZE - size);
          List<byte[]> leaves = new ArrayList<>(batch);
          for (int i = 0; i < batch; i++) {
            leaves.add(LogHash.leaf(ByteBuffer.allocate(8).putLong(size + i).array()));
          }
          List<Node> nodes = LogTree.appended(size, leaves, frontier);
          Map<NodeId, byte[]> all = new HashMap<>(frontier);
          for (Node n : nodes) {
            ps.setString(1, WS);
            ps.setInt(2, n.id().level());
            ps.setLong(3, n.id().index());
            ps.setBytes(4, n.hash());
            ps.addBatch();
            all.put(n.id(), n.hash());
          }
          ps.executeBatch();
          size += batch;
          frontier = new HashMap<>();
          for (NodeId id : LogTree.decompose(0, size)) {
            frontier.put(id, all.get(id));
          }
        }
      }
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO log_heads (workspace_id, tree_size) VALUES (?, ?)")) {
        ps.setString(1, WS);
        ps.setLong(2, SIZE);
        ps.executeUpdate();
      }
      c.commit();
    }
    store = JdbcStore.sqlite(db, key);
  }

  @TearDown(Level.Trial)
  public void close() throws Exception {
    store.close();
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private List<byte[]> proof(List<LogTree.Range> ranges) {
    return store.read(tx -> LogTree.hashes(ranges, tx.logNodes(WS, LogTree.needed(ranges))));
  }

  @Benchmark
  public List<byte[]> inclusionProof() {
    long index = ThreadLocalRandom.current().nextLong(SIZE);
    return proof(LogTree.inclusion(index, SIZE));
  }

  @Benchmark
  public List<byte[]> consistencyProof() {
    long from = 1 + ThreadLocalRandom.current().nextLong(SIZE - 1);
    return proof(LogTree.consistency(from, SIZE));
  }
}
