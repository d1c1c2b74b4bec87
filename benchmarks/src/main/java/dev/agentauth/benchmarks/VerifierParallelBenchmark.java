package dev.agentauth.benchmarks;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The auditor CLI's verification engine: a batch of {@value #BATCH} distinct signed receipts
 * verified with {@code --threads 1} (one by one on the calling thread, as the CLI does) and with
 * {@code --threads 2} ({@link ReceiptVerifier#verifyAll} on a two-thread pool, as the CLI does).
 * The score is receipts per second ({@link OperationsPerInvocation}).
 *
 * <p>The target: {@code threads=2} at least 1.8 times {@code threads=1} on a machine with two idle
 * cores. See {@code benchmarks/README.md}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class VerifierParallelBenchmark {

  /** Receipts per batch: several hundred, like a day of one authorization's checks. */
  static final int BATCH = 512;

  /** Verification threads, as {@code --threads}. */
  @Param({"1", "2"})
  public int threads;

  private ReceiptVerifier verifier;
  private List<String> receipts;
  private ExecutorService pool;

  /** Creates the benchmark state; JMH calls {@link #setUp()} before measuring. */
  public VerifierParallelBenchmark() {}

  /**
   * Signs the batch, builds the verifier and the pool, and checks that every receipt verifies.
   *
   * @throws JsonProcessingException never, in practice: the JSON is built here
   */
  @Setup(Level.Trial)
  public void setUp() throws JsonProcessingException {
    ReceiptBatch batch = ReceiptBatch.create(BATCH);
    verifier = batch.verifier();
    receipts = batch.receipts();
    pool = threads > 1 ? Executors.newFixedThreadPool(threads) : null;
    for (VerificationResult r : verify()) {
      if (!r.valid()) {
        throw new IllegalStateException("benchmark receipt does not verify: " + r);
      }
    }
  }

  /** Stops the pool. */
  @TearDown(Level.Trial)
  public void tearDown() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  /**
   * Verifies the whole batch on {@link #threads} threads.
   *
   * @return the results, returned so the JIT cannot drop the work
   */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public List<VerificationResult> verify() {
    if (pool == null) {
      return receipts.stream().map(verifier::verify).toList();
    }
    return verifier.verifyAll(receipts, pool);
  }
}
