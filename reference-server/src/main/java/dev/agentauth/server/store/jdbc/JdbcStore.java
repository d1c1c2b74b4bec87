package dev.agentauth.server.store.jdbc;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.agentauth.server.fatal.FatalErrors;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.Store.CheckWork;
import dev.agentauth.server.store.Store.GroupKey;
import dev.agentauth.server.store.StoreException;
import dev.agentauth.server.store.StoreUnavailableException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;
import org.sqlite.SQLiteErrorCode;

/**
 * A durable {@link Store} on a SQL database: SQLite for a single server (the default) or PostgreSQL
 * for several server instances sharing one database. The schema is created and upgraded with
 * Flyway, one migration folder per dialect ({@code db/migration/sqlite}, {@code
 * db/migration/postgresql}).
 *
 * <p><b>SQLite</b> runs in WAL mode with {@code synchronous=FULL}: a transaction that returned has
 * reached the disk. All writes go through one writer connection on one thread, which commits the
 * transactions queued by concurrent requests together (group commit): each request's work runs
 * inside its own savepoint, so a request that fails rolls back alone, and one {@code COMMIT} — one
 * fsync — makes the whole batch durable before any of its callers returns. {@link #read} runs on a
 * small pool of read-only connections, which WAL lets proceed alongside the writer, within {@link
 * ReadLimits}.
 *
 * <p><b>PostgreSQL</b> runs each transaction on a HikariCP connection at {@code READ COMMITTED},
 * writes and reads on separate pools (so that list scans never hold a connection a check needs);
 * the authorization row lock ({@code SELECT ... FOR UPDATE}), advisory locks for {@link
 * dev.agentauth.server.store.Tx#lock} and conditional updates keep counters, budgets, approvals and
 * idempotency exact across instances. Transactions aborted by a deadlock or serialization failure
 * are retried.
 *
 * <p>Signing-key seeds are stored sealed with the {@link MasterKey}; opening a store with a
 * different master key than the one it was created with fails at once.
 */
public final class JdbcStore implements Store {
  private static final Logger log = LoggerFactory.getLogger(JdbcStore.class);
  private static final String KEY_CHECK = "master_key_check";
  private static final byte[] KEY_CHECK_PLAINTEXT =
      "agentauth master key check".getBytes(StandardCharsets.US_ASCII);

  /**
   * How long a request waits for the store's writer (SQLite) or a group thread (PostgreSQL) to run
   * its transaction before it answers 503: far above a normal batch (milliseconds), below the
   * SQLite busy retries' worst case (about 30 s) and a client's patience.
   */
  static final java.time.Duration WRITE_WAIT = java.time.Duration.ofSeconds(10);

  /** {@code Retry-After} when a wait for the writer ran out. */
  static final long RETRY_AFTER_SECONDS = 1;

  private final Dialect dialect;
  private final MasterKey masterKey;
  private volatile java.time.Duration writeWait;
  private final ObjectMapper json = new ObjectMapper();
  private final Map<String, Object> decodedJson = DecodedJsonCache.create();
  private final Engine engine;
  private final String description;
  private final ReadLimits readLimits;

  /**
   * What bounds a read ({@link #read}: every {@code GET}): how many connections serve reads, how
   * long a read waits for one, and how long its statements may run. A wait or a statement that runs
   * out answers {@link StoreUnavailableException} (503 with {@code Retry-After}), never a 500 and
   * never a wait without end.
   *
   * @param connections read connections: SQLite's read-only connections, PostgreSQL's read pool
   * @param connectionWait the longest wait for a free read connection (PostgreSQL: at least 250 ms)
   * @param timeLimit the longest a read's statements may run
   */
  record ReadLimits(int connections, Duration connectionWait, Duration timeLimit) {
    /** 4 connections on SQLite, 8 on PostgreSQL; 1 s wait; 2 s of statements. */
    static ReadLimits defaults(Dialect dialect) {
      return new ReadLimits(
          dialect == Dialect.POSTGRES ? 8 : 4, Duration.ofSeconds(1), Duration.ofSeconds(2));
    }

    ReadLimits {
      if (connections < 1
          || connectionWait.isNegative()
          || timeLimit.isNegative()
          || timeLimit.isZero()) {
        throw new IllegalArgumentException(
            "read limits need connections >= 1, wait >= 0 and timeLimit > 0, got "
                + connections
                + ", "
                + connectionWait
                + ", "
                + timeLimit);
      }
    }
  }

  /** Seconds a client is told to wait when a read could not get a connection or ran too long. */
  private static final long READ_RETRY_AFTER_SECONDS = 1;

  private StoreUnavailableException readRanOut(Throwable cause) {
    return new StoreUnavailableException(
        "the read ran over its limit of " + readLimits.timeLimit().toMillis() + " ms",
        READ_RETRY_AFTER_SECONDS,
        cause);
  }

  /** How transactions reach the database. */
  private interface Engine {
    <T> T write(Work<T> work);

    <T> T read(Work<T> work);

    /** Runs signature-storing work (see {@link Store#inSigningTransaction}); by default a write. */
    default <T> T writeFirst(Work<T> work) {
      return write(work);
    }

    /** Runs grouped work (see {@link Store#inGroupedTransaction}); by default on its own. */
    default <T> T group(GroupKey key, CheckWork<T> work) {
      return write(work::run);
    }

    boolean ping();

    /** A transaction on {@code statements}' connection, in this database's SQL. */
    JdbcTx tx(JdbcTx.Statements statements);

    /** How long a signing batch waits to gather receipts (see {@link Store#batchLinger}). */
    java.time.Duration batchLinger();

    /** Whether the threads the engine needs are running. */
    default boolean isLive() {
      return true;
    }

    void close();
  }

  private JdbcStore(
      Dialect dialect,
      MasterKey masterKey,
      String description,
      java.time.Duration writeWait,
      ReadLimits readLimits,
      EngineFactory f) {
    this.dialect = dialect;
    this.masterKey = masterKey;
    this.writeWait = writeWait;
    this.description = description;
    this.readLimits = readLimits;
    this.engine = f.create(this);
    try {
      checkMasterKey();
    } catch (RuntimeException e) {
      engine.close();
      throw e;
    }
  }

  @FunctionalInterface
  private interface EngineFactory {
    Engine create(JdbcStore store);
  }

  /**
   * Opens (creating if needed) a SQLite store in {@code file}, migrating its schema.
   *
   * @throws StoreException if the file cannot be opened or was created with another master key
   */
  public static JdbcStore sqlite(Path file, MasterKey masterKey) {
    return sqlite(file, masterKey, WRITE_WAIT, ReadLimits.defaults(Dialect.SQLITE));
  }

  /** {@link #sqlite(Path, MasterKey)} with other read limits (for tests). */
  static JdbcStore sqlite(Path file, MasterKey masterKey, ReadLimits readLimits) {
    return sqlite(file, masterKey, WRITE_WAIT, readLimits);
  }

  private static JdbcStore sqlite(
      Path file, MasterKey masterKey, java.time.Duration writeWait, ReadLimits readLimits) {
    Path abs = file.toAbsolutePath();
    try {
      MasterKey.createPrivateDirectories(abs.getParent());
    } catch (java.io.IOException e) {
      throw new StoreException("cannot create the directory of " + abs + ": " + e, e);
    }
    ownerOnly(abs);
    return new JdbcStore(
        Dialect.SQLITE, masterKey, "sqlite:" + abs, writeWait, readLimits, s -> s.new Sqlite(abs));
  }

  /**
   * Opens a PostgreSQL store at {@code jdbcUrl} (e.g. {@code
   * jdbc:postgresql://db:5432/agentauth?user=agentauth}), migrating its schema; the tables live in
   * the connection's current schema ({@code currentSchema} in the URL, default {@code public}).
   *
   * @throws StoreException if the database cannot be reached or was set up with another master key
   */
  public static JdbcStore postgres(String jdbcUrl, MasterKey masterKey) {
    return postgres(jdbcUrl, masterKey, WRITE_WAIT, ReadLimits.defaults(Dialect.POSTGRES));
  }

  /** {@link #postgres(String, MasterKey)} with other read limits (for tests). */
  static JdbcStore postgres(String jdbcUrl, MasterKey masterKey, ReadLimits readLimits) {
    return postgres(jdbcUrl, masterKey, WRITE_WAIT, readLimits);
  }

  private static JdbcStore postgres(
      String jdbcUrl, MasterKey masterKey, java.time.Duration writeWait, ReadLimits readLimits) {
    if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          "a PostgreSQL JDBC URL starts with jdbc:postgresql:, got " + redact(jdbcUrl));
    }
    return new JdbcStore(
        Dialect.POSTGRES,
        masterKey,
        "postgres:" + redact(jdbcUrl),
        writeWait,
        readLimits,
        s -> s.new Postgres(jdbcUrl));
  }

  /**
   * Makes the database file and its {@code -wal} and {@code -shm} files readable by their owner
   * only: creates the database file empty with mode 0600 when absent (SQLite gives the {@code -wal}
   * and {@code -shm} files it creates the mode of the database file), and narrows those that exist
   * with wider modes, saying so. Nothing on a file system without POSIX permissions.
   */
  private static void ownerOnly(Path db) {
    java.util.Set<java.nio.file.attribute.PosixFilePermission> ownerOnly =
        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------");
    try {
      java.nio.file.Files.createFile(
          db, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(ownerOnly));
    } catch (java.nio.file.FileAlreadyExistsException | UnsupportedOperationException e) {
      // exists (narrowed below), or not POSIX
    } catch (java.io.IOException e) {
      throw new StoreException("cannot create SQLite database " + db + ": " + e, e);
    }
    for (String suffix : List.of("", "-wal", "-shm")) {
      Path f = Path.of(db + suffix);
      try {
        java.util.Set<java.nio.file.attribute.PosixFilePermission> now =
            java.nio.file.Files.getPosixFilePermissions(f);
        if (!ownerOnly.containsAll(now)) {
          java.nio.file.Files.setPosixFilePermissions(f, ownerOnly);
          log.warn(
              "{} was readable by other users ({}); made it owner-only (rw-------)",
              f,
              java.nio.file.attribute.PosixFilePermissions.toString(now));
        }
      } catch (java.nio.file.NoSuchFileException | UnsupportedOperationException e) {
        // absent, or not POSIX
      } catch (java.io.IOException e) {
        throw new StoreException("cannot make " + f + " owner-only: " + e, e);
      }
    }
  }

  /** The URL without a password parameter. */
  private static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&]*", "$1***");
  }

  private void migrate(DataSource ds) {
    try {
      Flyway.configure()
          .dataSource(ds)
          .locations("classpath:db/migration/" + dialect.migrations)
          .failOnMissingLocations(true)
          .load()
          .migrate();
    } catch (org.flywaydb.core.api.FlywayException e) {
      // A failed migration rolled back; the database is as it was before this start.
      throw new StoreException(
          "cannot migrate the schema of " + description + ": " + e.getMessage(), e);
    }
  }

  /** Records a value sealed with the master key on first open and checks it on every later one. */
  private void checkMasterKey() {
    engine.write(
        tx -> {
          JdbcTx t = (JdbcTx) tx;
          byte[] sealed = t.meta(KEY_CHECK).orElse(null);
          if (sealed == null) {
            t.insertMetaIfAbsent(KEY_CHECK, masterKey.seal(KEY_CHECK_PLAINTEXT, KEY_CHECK));
            return null;
          }
          try {
            masterKey.open(sealed, KEY_CHECK);
          } catch (StoreException e) {
            throw new StoreException(
                "the master key does not match the one this store ("
                    + description
                    + ") was created with; its signing keys cannot be decrypted",
                e);
          }
          return null;
        });
  }

  private JdbcTx tx(JdbcTx.Statements statements) {
    return engine.tx(statements);
  }

  @Override
  public <T> T inTransaction(Work<T> work) {
    return engine.write(work);
  }

  @Override
  public <T> T read(Work<T> work) {
    return engine.read(work);
  }

  @Override
  public <T> T inGroupedTransaction(GroupKey key, CheckWork<T> work) {
    return engine.group(key, work);
  }

  @Override
  public <T> T inSigningTransaction(Work<T> work) {
    return engine.writeFirst(work);
  }

  /**
   * PostgreSQL 2 ms, SQLite 1 ms: a signing batch gathers receipts instead of paying round trips
   * (PostgreSQL) or a writer turn (SQLite) for a few.
   */
  @Override
  public java.time.Duration batchLinger() {
    return engine.batchLinger();
  }

  @Override
  public boolean isReachable() {
    return engine.ping();
  }

  @Override
  public boolean isLive() {
    return engine.isLive();
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public boolean sharedByInstances() {
    return dialect == Dialect.POSTGRES;
  }

  @Override
  public void close() {
    engine.close();
  }

  /**
   * Runs {@code works} as one group at once, as if they had been queued together (for tests): each
   * work's result, or what it threw.
   */
  List<Object> runAsOneGroup(List<GroupKey> keys, List<CheckWork<?>> works) {
    List<Job<?>> batch = new ArrayList<>(works.size());
    for (int i = 0; i < works.size(); i++) {
      batch.add(new Job<>(works.get(i), keys.get(i)));
    }
    if (engine instanceof Postgres p) {
      p.runGroup(batch);
    } else {
      Sqlite sqlite = (Sqlite) engine;
      sqlite.write(
          tx -> {
            try {
              sqlite.runGrouped(batch);
            } catch (SQLException e) {
              throw new StoreException("SQLite group failed: " + e.getMessage(), e);
            }
            return null;
          });
    }
    List<Object> out = new ArrayList<>(batch.size());
    for (Job<?> job : batch) {
      out.add(job.error != null ? job.error : job.result);
    }
    return out;
  }

  /**
   * Makes the SQLite writer throw {@code fault} from its own code when it takes its next batch, as
   * an allocation that fails outside any job would (for tests).
   */
  void failWriterOnce(Error fault) {
    ((Sqlite) engine).faultForTest = fault;
  }

  /** Changes how long callers wait for the writer or a group thread (for tests). */
  void writeWait(java.time.Duration wait) {
    this.writeWait = wait;
  }

  /** Write transactions queued for the SQLite writer and not yet taken (for tests). */
  int queuedWrites() {
    return ((Sqlite) engine).jobs.size();
  }

  /** Check targets the SQLite writer took from its cache instead of reading them (for tests). */
  long checkTargetsFromCache() {
    return engine instanceof Sqlite sqlite ? sqlite.checkTargets.hits() : 0;
  }

  // ---------------------------------------------------------------- SQLite

  /** Virtual-machine instructions between two calls of a reader's progress handler. */
  private static final int PROGRESS_STEPS = 10_000;

  /** A connection with its prepared statements kept for reuse. */
  private static final class CachedConnection implements JdbcTx.Statements {
    final Connection connection;
    private final Map<String, PreparedStatement> cache = new HashMap<>();

    /**
     * A read's deadline ({@link System#nanoTime}) while {@link #limited} is set: SQLite's progress
     * handler interrupts a statement that runs past it.
     */
    private volatile long deadline;

    private volatile boolean limited;
    private volatile boolean ranOut;

    CachedConnection(Connection connection) throws SQLException {
      this.connection = connection;
    }

    /**
     * Makes every statement of this connection stop with {@code SQLITE_INTERRUPT} once a deadline
     * set by {@link #limitTo} has passed. SQLite calls the handler every {@code PROGRESS_STEPS}
     * virtual-machine instructions, a few microseconds apart.
     */
    CachedConnection interruptible() throws SQLException {
      org.sqlite.ProgressHandler.setHandler(
          connection,
          PROGRESS_STEPS,
          new org.sqlite.ProgressHandler() {
            @Override
            protected int progress() {
              if (limited && System.nanoTime() - deadline > 0) {
                ranOut = true;
                return 1;
              }
              return 0;
            }
          });
      return this;
    }

    /** Starts a time limit of {@code limit} for the statements that follow. */
    void limitTo(Duration limit) {
      ranOut = false;
      deadline = System.nanoTime() + limit.toNanos();
      limited = true;
    }

    /** Ends the time limit; true when a statement was interrupted because it ran out. */
    boolean endLimit() {
      limited = false;
      return ranOut;
    }

    @Override
    public PreparedStatement prepare(String sql) throws SQLException {
      PreparedStatement ps = cache.get(sql);
      if (ps == null) {
        ps = connection.prepareStatement(sql);
        cache.put(sql, ps);
      }
      return ps;
    }

    void exec(String sql) throws SQLException {
      prepare(sql).execute();
    }

    /** Closes and forgets every prepared statement (after a failure left them in doubt). */
    void forgetStatements() {
      for (PreparedStatement ps : cache.values()) {
        try {
          ps.close();
        } catch (SQLException e) {
          log.debug("closing a statement failed", e);
        }
      }
      cache.clear();
    }

    void closeQuietly() {
      try {
        connection.close();
      } catch (SQLException e) {
        log.debug("closing a SQLite connection failed", e);
      }
    }
  }

  /**
   * A queued write transaction and, once run, its result. A job is claimed ({@link #start}) by the
   * thread that runs it; a caller that stops waiting first abandons it, and it is then skipped.
   */
  private static final class Job<T> {
    private static final int QUEUED = 0;
    private static final int RUNNING = 1;
    private static final int ABANDONED = 2;

    /** A write's work, or null for a grouped job. */
    final Work<T> work;

    /** A grouped job's work, or null for a write. */
    final CheckWork<T> checkWork;

    final GroupKey key;
    final CountDownLatch done = new CountDownLatch(1);
    private final AtomicInteger state = new AtomicInteger(QUEUED);
    T result;
    Throwable error;

    Job(Work<T> work) {
      this.work = work;
      this.checkWork = null;
      this.key = null;
    }

    Job(CheckWork<T> work, GroupKey key) {
      this.work = null;
      this.checkWork = work;
      this.key = key;
    }

    /** The job's work as a write, whichever kind it is. */
    Work<T> asWork() {
      return work != null ? work : checkWork::run;
    }

    /** Claims the job for running; false when its caller gave up waiting (skip it). */
    boolean start() {
      return state.compareAndSet(QUEUED, RUNNING);
    }

    /**
     * Waits up to {@code timeout} for the batch holding this job to commit or fail. An interrupt
     * does not end the wait early: once running, the work may commit, and the caller must learn
     * that rather than report a failure.
     *
     * @throws StoreUnavailableException when the time ran out: before the job started (it is then
     *     abandoned and never runs), or while it ran (it may still commit)
     */
    T await(java.time.Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      boolean interrupted = false;
      boolean finished;
      while (true) {
        try {
          finished = done.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      if (!finished) {
        if (state.compareAndSet(QUEUED, ABANDONED)) {
          throw new StoreUnavailableException(
              "the store's writer did not start this transaction within "
                  + timeout.toMillis()
                  + " ms; nothing was written",
              RETRY_AFTER_SECONDS);
        }
        if (done.getCount() > 0) {
          throw new StoreUnavailableException(
              "the transaction did not finish within "
                  + timeout.toMillis()
                  + " ms; it may still commit (retry with the same Idempotency-Key)",
              RETRY_AFTER_SECONDS);
        }
      }
      if (error == null) {
        return result;
      }
      if (error instanceof RuntimeException r) {
        throw r;
      }
      if (error instanceof Error e) {
        throw e; // the work's own Error, unchanged (Store#inTransaction)
      }
      throw new StoreException("transaction failed", error);
    }
  }

  /** The distinct keys of a group's jobs. */
  private static List<GroupKey> keysOf(List<Job<?>> group) {
    java.util.Set<GroupKey> keys = new java.util.LinkedHashSet<>();
    group.forEach(job -> keys.add(job.key));
    return new ArrayList<>(keys);
  }

  /**
   * Runs {@code jobs} as one group on {@code base}'s transaction: locks their authorizations, runs
   * each job, then writes what the group held back. False when the group must be rolled back and
   * its jobs run again alone; a statement that fails throws.
   */
  private static boolean runGroupOn(JdbcTx base, List<Job<?>> jobs) {
    GroupTx g = new GroupTx(base, base.lockForGroup(keysOf(jobs)));
    for (Job<?> job : jobs) {
      if (!runInGroup(g, job)) {
        return false;
      }
    }
    g.flush();
    return true;
  }

  /**
   * Runs one job of a group; false when the group must be rolled back: a statement failed (the
   * transaction may be aborted) or the job failed after statements it caused had run.
   */
  private static <T> boolean runInGroup(GroupTx g, Job<T> job) {
    g.beginWork();
    try {
      job.result = job.checkWork.run(g);
      return true;
    } catch (StoreException e) {
      return false;
    } catch (Error e) {
      job.error = e; // its caller gets it unchanged; the whole batch is rolled back and fails
      throw e;
    } catch (Throwable t) {
      if (!g.undoWork()) {
        return false;
      }
      job.result = null;
      job.error = t;
      return true;
    }
  }

  private final class Sqlite implements Engine {
    @Override
    public JdbcTx tx(JdbcTx.Statements statements) {
      return new SqliteTx(statements, masterKey, json, decodedJson, null);
    }

    /** A writer turn is the cost SQLite's signer saves by gathering receipts for 1 ms. */
    @Override
    public java.time.Duration batchLinger() {
      return java.time.Duration.ofMillis(1);
    }

    private static final int MAX_BATCH = 256;
    private static final int BUSY_TIMEOUT_MS = 5_000;
    private static final int BUSY_ATTEMPTS = 6;

    private final CachedConnection writer;
    private final CheckTargetCache checkTargets = new CheckTargetCache();
    private final JdbcTx writerTx;

    /**
     * {@code PRAGMA data_version} as the last batch began; another connection's commit changes it.
     */
    private long dataVersion = -1;

    private final BlockingQueue<Job<?>> jobs = new LinkedBlockingQueue<>();

    /** Free read connections; fair, so that waiting readers are served in arrival order. */
    private final BlockingQueue<CachedConnection> readers =
        new ArrayBlockingQueue<>(readLimits.connections(), true);

    /**
     * Signature-storing jobs ({@link #writeFirst}): every batch takes all of them before any job of
     * {@link #jobs}, where each also queues {@link #WAKE} to wake the writer.
     */
    private final BlockingQueue<Job<?>> firstJobs = new LinkedBlockingQueue<>();

    private static final Job<?> WAKE = new Job<>(tx -> null);

    private final List<CachedConnection> allReaders = new ArrayList<>();
    private final Thread thread;

    /**
     * Wakes the callers of a committed batch, so that the writer goes on to the next batch at once
     * instead of paying a thread wake-up per job first.
     */
    private final java.util.concurrent.ExecutorService waker =
        java.util.concurrent.Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "agentauth-sqlite-waker");
              t.setDaemon(true);
              return t;
            });

    private volatile boolean closed;

    /** An Error the writer throws from its own code at its next batch (for tests). */
    private volatile Error faultForTest;

    Sqlite(Path file) {
      String url = "jdbc:sqlite:" + file;
      try {
        SQLiteConfig wc = config();
        wc.setJournalMode(SQLiteConfig.JournalMode.WAL);
        wc.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        wc.setCacheSize(-65_536); // 64 MiB of page cache for the writer
        // The batch's savepoints keep their undo pages in memory, not in a temporary file that
        // would be created and unlinked for every batch (and need a writable temp directory).
        wc.setTempStore(SQLiteConfig.TempStore.MEMORY);
        writer = new CachedConnection(wc.createConnection(url));
      } catch (SQLException e) {
        throw new StoreException("cannot open SQLite database " + file + ": " + e.getMessage(), e);
      }
      try {
        SQLiteDataSource ds = new SQLiteDataSource(config());
        ds.setUrl(url);
        migrate(ds);
        for (int i = 0; i < readLimits.connections(); i++) {
          SQLiteConfig rc = config();
          rc.setReadOnly(true);
          CachedConnection c = new CachedConnection(rc.createConnection(url)).interruptible();
          allReaders.add(c);
          readers.add(c);
        }
      } catch (SQLException | RuntimeException e) {
        writer.closeQuietly();
        allReaders.forEach(CachedConnection::closeQuietly);
        throw e instanceof StoreException se
            ? se
            : new StoreException("cannot open SQLite database " + file + ": " + e.getMessage(), e);
      }
      writerTx = new SqliteTx(writer, masterKey, json, decodedJson, checkTargets);
      thread = new Thread(this::run, "agentauth-sqlite-writer");
      thread.setDaemon(true);
      thread.start();
    }

    private SQLiteConfig config() {
      SQLiteConfig c = new SQLiteConfig();
      c.setBusyTimeout(BUSY_TIMEOUT_MS);
      // Otherwise the driver runs SELECT last_insert_rowid() after every INSERT.
      c.setGetGeneratedKeys(false);
      return c;
    }

    @Override
    public <T> T write(Work<T> work) {
      if (Thread.currentThread() == thread) {
        return work.run(writerTx); // nested: already inside the batch's transaction
      }
      return enqueue(new Job<>(work));
    }

    /** Queues {@code work} for the writer, grouped with other checks. */
    @Override
    public <T> T group(GroupKey key, CheckWork<T> work) {
      if (Thread.currentThread() == thread) {
        return work.run(writerTx); // nested: already inside the batch's transaction
      }
      return enqueue(new Job<>(work, key));
    }

    private <T> T enqueue(Job<T> job) {
      if (closed) {
        throw new StoreException("store is closed");
      }
      jobs.add(job);
      return job.await(writeWait);
    }

    @Override
    public <T> T writeFirst(Work<T> work) {
      if (Thread.currentThread() == thread) {
        return work.run(writerTx);
      }
      if (closed) {
        throw new StoreException("store is closed");
      }
      Job<T> job = new Job<>(work);
      firstJobs.add(job);
      jobs.add(WAKE);
      return job.await(writeWait);
    }

    @Override
    public <T> T read(Work<T> work) {
      if (Thread.currentThread() == thread) {
        return work.run(writerTx);
      }
      if (closed) {
        throw new StoreException("store is closed");
      }
      CachedConnection c;
      try {
        c = readers.poll(readLimits.connectionWait().toNanos(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreException("interrupted while waiting for a read connection", e);
      }
      if (c == null) {
        throw new StoreUnavailableException(
            "every SQLite read connection stayed busy for "
                + readLimits.connectionWait().toMillis()
                + " ms",
            READ_RETRY_AFTER_SECONDS);
      }
      try {
        c.exec("BEGIN");
        T result;
        c.limitTo(readLimits.timeLimit());
        try {
          result = work.run(tx(c));
        } catch (RuntimeException | Error e) {
          // The limit ends first, so that it cannot interrupt the rollback too.
          boolean ranOut = c.endLimit();
          c.exec("ROLLBACK");
          if (ranOut) {
            throw readRanOut(e);
          }
          throw e;
        }
        c.endLimit();
        c.exec("COMMIT");
        return result;
      } catch (SQLException e) {
        throw new StoreException("SQLite read failed: " + e.getMessage(), e);
      } finally {
        c.endLimit();
        readers.add(c);
      }
    }

    private void run() {
      while (true) {
        List<Job<?>> batch = null;
        try {
          Job<?> first;
          try {
            first = jobs.poll(100, TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            first = null;
          }
          if (first == null) {
            if (closed && jobs.isEmpty() && firstJobs.isEmpty()) {
              return;
            }
            continue;
          }
          batch = batchFrom(first);
          if (batch.isEmpty()) {
            batch = null;
            continue;
          }
          Error fault = faultForTest;
          if (fault != null) {
            faultForTest = null;
            throw fault;
          }
          runBatch(batch);
        } catch (Throwable t) {
          recover(batch, t);
        }
        if (batch != null) {
          wake(batch);
        }
      }
    }

    /**
     * The next batch: every queued signature-storing job first, so signing never waits behind a
     * queue of checks, then {@code first} and other queued jobs up to {@link #MAX_BATCH} in all. A
     * new list per batch: the waker still holds the last one.
     */
    private List<Job<?>> batchFrom(Job<?> first) {
      List<Job<?>> batch = new ArrayList<>();
      firstJobs.drainTo(batch);
      if (first != WAKE) {
        batch.add(first);
      }
      jobs.drainTo(batch, Math.max(0, MAX_BATCH - batch.size()));
      batch.removeIf(j -> j == WAKE);
      return batch;
    }

    /**
     * After a batch failed in a way its savepoints could not contain (an Error, from a job or from
     * the writer's own code): rolls the whole batch back, forgets what the writer cached, and fails
     * every job of it, so that the writer goes on with the next batch.
     */
    private void recover(List<Job<?>> batch, Throwable t) {
      try {
        log.error("SQLite writer: a batch failed; rolled back, the writer goes on", t);
        rollbackQuietly();
        writer.forgetStatements();
        if (batch != null) {
          StoreException failure = new StoreException("SQLite transaction failed: " + t, t);
          for (Job<?> job : batch) {
            job.result = null;
            if (job.error == null) {
              job.error = failure; // a job that threw keeps its own failure
            }
          }
        }
      } catch (Throwable again) {
        // Nothing more can be done here; the writer thread must not die of it.
        if (batch != null) {
          batch.stream().filter(j -> j.error == null).forEach(j -> j.error = t);
        }
      } finally {
        FatalErrors.report(t);
      }
    }

    /**
     * Runs the claimed jobs of the batch in one transaction, each in its own savepoint, and commits
     * them together; jobs whose callers stopped waiting are skipped. A job that throws an exception
     * is rolled back alone; an Error escapes (see {@link #recover}).
     */
    private void runBatch(List<Job<?>> batch) {
      try {
        begin();
      } catch (SQLException e) {
        StoreException failure = new StoreException("SQLite is busy or failing: " + e, e);
        batch.forEach(j -> j.error = failure);
        return;
      }
      List<Job<?>> grouped = new ArrayList<>();
      List<Job<?>> alone = new ArrayList<>();
      for (Job<?> job : batch) {
        if (job.start()) {
          (job.key != null ? grouped : alone).add(job);
        }
      }
      if (grouped.size() == 1) {
        alone.add(grouped.remove(0));
      }
      boolean single = alone.size() + grouped.size() == 1;
      try {
        for (Job<?> job : alone) {
          runJob(job, single);
        }
        runGrouped(grouped);
        writer.exec("COMMIT");
      } catch (SQLException e) {
        rollbackQuietly();
        StoreException failure =
            new StoreException("SQLite transaction failed: " + e.getMessage(), e);
        for (Job<?> job : batch) {
          if (job.error == null) {
            job.error = failure;
          }
        }
      }
    }

    private void wake(List<Job<?>> finished) {
      try {
        waker.execute(() -> finished.forEach(j -> j.done.countDown()));
      } catch (Throwable e) {
        // closing, or no memory for the task: wake them here
        finished.forEach(j -> j.done.countDown());
      }
    }

    /**
     * Runs grouped jobs as one group, or — when that fails in a way only running each alone can
     * isolate — each in its own savepoint. Runs on the writer thread inside a transaction.
     */
    void runGrouped(List<Job<?>> grouped) throws SQLException {
      if (grouped.isEmpty() || runGroup(grouped)) {
        return;
      }
      for (Job<?> job : grouped) {
        job.result = null;
        job.error = null;
        runJob(job, false);
      }
    }

    /**
     * Runs grouped jobs together on a {@link GroupTx} inside one savepoint; false (and the
     * savepoint rolled back) when one of them failed in a way only running each alone can isolate.
     */
    private boolean runGroup(List<Job<?>> grouped) throws SQLException {
      writer.exec("SAVEPOINT grouped");
      boolean ok;
      try {
        ok = runGroupOn(writerTx, grouped);
      } catch (RuntimeException e) {
        log.debug("group failed; running its jobs alone", e);
        ok = false;
      }
      if (!ok) {
        rollback("ROLLBACK TO grouped");
      }
      writer.exec("RELEASE grouped");
      return ok;
    }

    private <T> void runJob(Job<T> job, boolean single) throws SQLException {
      if (!single) {
        writer.exec("SAVEPOINT job");
      }
      try {
        job.result = job.asWork().run(writerTx);
      } catch (Error e) {
        job.error = e; // its caller gets it unchanged; the whole batch is rolled back (recover)
        throw e;
      } catch (Throwable t) {
        job.error = t;
      }
      if (single) {
        if (job.error != null) {
          rollback("ROLLBACK");
          writer.exec("BEGIN IMMEDIATE"); // the COMMIT that follows then commits nothing
        }
      } else if (job.error == null) {
        writer.exec("RELEASE job");
      } else {
        rollback("ROLLBACK TO job");
        writer.exec("RELEASE job");
      }
    }

    /**
     * Begins the batch's transaction, waiting while another process holds the database, and forgets
     * the cached check targets if another connection has committed since the last batch.
     */
    private void begin() throws SQLException {
      beginImmediate();
      try {
        long version = dataVersion();
        if (version != dataVersion) {
          checkTargets.clear();
          dataVersion = version;
        }
      } catch (SQLException e) {
        rollbackQuietly();
        throw e;
      }
    }

    private void beginImmediate() throws SQLException {
      for (int attempt = 1; ; attempt++) {
        try {
          writer.exec("BEGIN IMMEDIATE");
          return;
        } catch (SQLException e) {
          boolean busy =
              e.getErrorCode() == SQLiteErrorCode.SQLITE_BUSY.code
                  || e.getErrorCode() == SQLiteErrorCode.SQLITE_LOCKED.code;
          if (!busy || attempt == BUSY_ATTEMPTS) {
            throw e;
          }
          log.warn("SQLite database is busy (another process holds it?); retrying");
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50L * attempt));
        }
      }
    }

    private long dataVersion() throws SQLException {
      try (ResultSet rs = writer.prepare("PRAGMA data_version").executeQuery()) {
        return rs.next() ? rs.getLong(1) : -1;
      }
    }

    /** Rolls back (a transaction or to a savepoint); what the writer had cached may be undone. */
    private void rollback(String sql) throws SQLException {
      checkTargets.clear();
      writer.exec(sql);
    }

    private void rollbackQuietly() {
      try {
        rollback("ROLLBACK");
      } catch (SQLException e) {
        log.debug("rollback after a failed batch failed", e);
      }
    }

    private void finish(Job<?> job, Throwable error) {
      job.error = error;
      job.done.countDown();
    }

    @Override
    public boolean ping() {
      return !closed && thread.isAlive();
    }

    @Override
    public boolean isLive() {
      return thread.isAlive();
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        // The writer finishes what is queued, in milliseconds when it is well. A writer stuck for
        // longer than a caller waits is not waited for either: every caller has given up by then.
        thread.join(Math.max(1, writeWait.toMillis()));
        // After the writer's last batch, so that its callers are woken before close returns.
        waker.shutdown();
        waker.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        waker.shutdown();
      }
      Job<?> left;
      while ((left = firstJobs.poll()) != null || (left = jobs.poll()) != null) {
        if (left != WAKE) {
          finish(left, new StoreException("store is closed"));
        }
      }
      writer.closeQuietly();
      allReaders.forEach(CachedConnection::closeQuietly);
    }
  }

  // ---------------------------------------------------------------- PostgreSQL

  /** Statements of one transaction, closed with it. */
  private static final class TrackedStatements implements JdbcTx.Statements {
    private final Connection connection;
    private final List<PreparedStatement> open = new ArrayList<>();

    TrackedStatements(Connection connection) {
      this.connection = connection;
    }

    @Override
    public PreparedStatement prepare(String sql) throws SQLException {
      PreparedStatement ps = connection.prepareStatement(sql);
      open.add(ps);
      return ps;
    }

    void closeAll() {
      for (PreparedStatement ps : open) {
        try {
          ps.close();
        } catch (SQLException e) {
          log.debug("closing a statement failed", e);
        }
      }
      open.clear();
    }
  }

  private final class Postgres implements Engine {
    @Override
    public JdbcTx tx(JdbcTx.Statements statements) {
      return new PostgresTx(statements, masterKey, json, decodedJson);
    }

    /** Round trips are the cost PostgreSQL's signer saves by gathering receipts for 2 ms. */
    @Override
    public java.time.Duration batchLinger() {
      return java.time.Duration.ofMillis(2);
    }

    /** Connections for writes: checks, mutations and signing. */
    private static final int WRITE_POOL = 16;

    /** The longest a write waits for a connection of its pool before answering 503. */
    private static final long WRITE_WAIT_MS = 5_000;

    /** SQLSTATE of a statement cancelled by {@code statement_timeout}. */
    private static final String QUERY_CANCELED = "57014";

    private static final int ATTEMPTS = 3;

    /** Threads committing groups of checks; each holds one connection while a group runs. */
    private static final int GROUPERS = 2;

    /** The most checks one group commits together. */
    private static final int MAX_GROUP = 64;

    /** Writes: checks, mutations, signing; never waits behind a list scan. */
    private final HikariDataSource ds;

    /** Reads ({@code GET}s), read-only, with a {@code statement_timeout}. */
    private final HikariDataSource readDs;

    private final BlockingQueue<Job<?>> grouped = new LinkedBlockingQueue<>();
    private final List<Thread> groupers = new ArrayList<>();
    private volatile boolean closed;

    Postgres(String jdbcUrl) {
      HikariConfig cfg = poolConfig(jdbcUrl, "agentauth-postgres-write", WRITE_POOL);
      cfg.setConnectionTimeout(WRITE_WAIT_MS);
      cfg.setMinimumIdle(2);
      HikariConfig rc = poolConfig(jdbcUrl, "agentauth-postgres-read", readLimits.connections());
      // Hikari takes no wait under 250 ms (it would use its 30 s default instead).
      rc.setConnectionTimeout(Math.max(250, readLimits.connectionWait().toMillis()));
      rc.setMinimumIdle(1);
      rc.setReadOnly(true);
      rc.setConnectionInitSql(
          "SET statement_timeout = " + Math.max(1, readLimits.timeLimit().toMillis()));
      try {
        ds = new HikariDataSource(cfg);
      } catch (RuntimeException e) {
        throw new StoreException(
            "cannot connect to PostgreSQL at " + redact(jdbcUrl) + ": " + e.getMessage(), e);
      }
      try {
        migrate(ds);
      } catch (RuntimeException e) {
        ds.close();
        throw new StoreException("migrating the PostgreSQL schema failed: " + e.getMessage(), e);
      }
      try {
        readDs = new HikariDataSource(rc);
      } catch (RuntimeException e) {
        ds.close();
        throw new StoreException(
            "cannot connect to PostgreSQL at " + redact(jdbcUrl) + ": " + e.getMessage(), e);
      }
      for (int i = 0; i < GROUPERS; i++) {
        Thread t = new Thread(this::runGroups, "agentauth-postgres-group-" + i);
        t.setDaemon(true);
        groupers.add(t);
        t.start();
      }
    }

    private static HikariConfig poolConfig(String jdbcUrl, String name, int size) {
      HikariConfig cfg = new HikariConfig();
      cfg.setJdbcUrl(jdbcUrl);
      cfg.setPoolName(name);
      cfg.setMaximumPoolSize(size);
      cfg.setAutoCommit(false);
      cfg.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
      cfg.setInitializationFailTimeout(TimeUnit.SECONDS.toMillis(10));
      return cfg;
    }

    /**
     * A connection of {@code pool}; when none frees up within the pool's wait (or the database
     * cannot be reached), {@link StoreUnavailableException}.
     */
    private Connection connection(HikariDataSource pool) throws SQLException {
      try {
        return pool.getConnection();
      } catch (SQLTransientConnectionException e) {
        throw new StoreUnavailableException(
            "no connection of "
                + pool.getPoolName()
                + " within "
                + pool.getConnectionTimeout()
                + " ms: "
                + e.getMessage(),
            1,
            e);
      }
    }

    @Override
    public <T> T group(GroupKey key, CheckWork<T> work) {
      if (closed) {
        throw new StoreException("store is closed");
      }
      Job<T> job = new Job<>(work, key);
      grouped.add(job);
      return job.await(writeWait);
    }

    private void runGroups() {
      List<Job<?>> batch = new ArrayList<>(MAX_GROUP);
      while (true) {
        try {
          Job<?> first;
          try {
            first = grouped.poll(100, TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            first = null;
          }
          if (first == null) {
            if (closed && grouped.isEmpty()) {
              return;
            }
            continue;
          }
          batch.add(first);
          grouped.drainTo(batch, MAX_GROUP - 1);
          List<Job<?>> claimed = new ArrayList<>(batch.size());
          for (Job<?> job : batch) {
            if (job.start()) {
              claimed.add(job); // the others' callers stopped waiting: skip them
            }
          }
          if (!claimed.isEmpty()) {
            runGroup(claimed);
          }
        } catch (Throwable e) {
          // Never leave a caller waiting, nor this thread dead.
          try {
            log.error("running a group of checks failed", e);
            StoreException failure = new StoreException("transaction failed: " + e, e);
            batch.stream().filter(j -> j.error == null).forEach(j -> j.error = failure);
          } catch (Throwable again) {
            batch.forEach(j -> j.error = e);
          } finally {
            FatalErrors.report(e);
          }
        } finally {
          batch.forEach(j -> j.done.countDown());
          batch.clear();
        }
      }
    }

    /**
     * Runs the jobs in one transaction on a {@link GroupTx}. If the group fails before its commit —
     * a statement failed, or a job failed in a way that cannot be undone alone — it is rolled back
     * and every job runs again on its own, so one bad job never fails the others.
     */
    void runGroup(List<Job<?>> batch) {
      boolean again;
      try (Connection c = connection(ds)) {
        again = !commitGroup(c, batch);
      } catch (StoreUnavailableException e) {
        batch.forEach(j -> j.error = e);
        return;
      } catch (SQLException e) {
        StoreException failure =
            new StoreException("PostgreSQL connection failed: " + e.getMessage(), e);
        batch.forEach(j -> j.error = failure);
        return;
      }
      if (again) {
        for (Job<?> job : batch) {
          runAlone(job);
        }
      }
    }

    private <T> void runAlone(Job<T> job) {
      job.result = null;
      job.error = null;
      try {
        job.result = write(job.asWork());
      } catch (Throwable t) {
        job.error = t;
      }
    }

    /** True when the group committed or failed for good; false to run its jobs again alone. */
    private boolean commitGroup(Connection c, List<Job<?>> batch) {
      TrackedStatements statements = new TrackedStatements(c);
      boolean done = false;
      try {
        if (!runGroupOn(tx(statements), batch)) {
          return false;
        }
        statements.closeAll();
        try {
          c.commit();
        } catch (SQLException e) {
          if (isRetryable(e)) {
            log.debug("group commit aborted by a conflict; running its jobs alone", e);
            return false;
          }
          StoreException failure =
              new StoreException("PostgreSQL commit failed: " + e.getMessage(), e);
          batch.forEach(j -> j.error = failure);
        }
        done = true;
        return true;
      } catch (RuntimeException e) {
        log.debug("group failed; running its jobs alone", e);
        return false;
      } finally {
        statements.closeAll();
        if (!done) {
          rollbackQuietly(c);
        }
      }
    }

    @Override
    public <T> T write(Work<T> work) {
      for (int attempt = 1; ; attempt++) {
        try {
          return once(work);
        } catch (StoreException e) {
          if (attempt == ATTEMPTS || !retryable(e)) {
            throw e;
          }
          log.debug("transaction aborted by a conflict; retrying", e);
        }
      }
    }

    private boolean retryable(StoreException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof SQLException s) {
          return isRetryable(s);
        }
      }
      return false;
    }

    /** A serialization failure or deadlock: the transaction was rolled back and may run again. */
    private static boolean isRetryable(SQLException e) {
      String state = e.getSQLState();
      return "40001".equals(state) || "40P01".equals(state);
    }

    private <T> T once(Work<T> work) {
      return once(ds, work);
    }

    private <T> T once(HikariDataSource pool, Work<T> work) {
      try (Connection c = connection(pool)) {
        TrackedStatements statements = new TrackedStatements(c);
        boolean ok = false;
        try {
          T result = work.run(tx(statements));
          statements.closeAll();
          c.commit();
          ok = true;
          return result;
        } finally {
          statements.closeAll();
          if (!ok) {
            rollbackQuietly(c);
          }
        }
      } catch (SQLException e) {
        throw new StoreException("PostgreSQL transaction failed: " + e.getMessage(), e);
      }
    }

    private void rollbackQuietly(Connection c) {
      try {
        c.rollback();
      } catch (SQLException e) {
        log.debug("rollback failed", e);
      }
    }

    /**
     * Runs on the read pool, apart from the writes, so that list scans never hold a connection a
     * check needs; a statement cancelled by the read pool's {@code statement_timeout} answers
     * {@link StoreUnavailableException}. Conflicts cannot abort a read, so it runs once.
     */
    @Override
    public <T> T read(Work<T> work) {
      try {
        return once(readDs, work);
      } catch (StoreUnavailableException e) {
        throw e;
      } catch (StoreException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
          if (t instanceof SQLException s && QUERY_CANCELED.equals(s.getSQLState())) {
            throw readRanOut(e);
          }
        }
        throw e;
      }
    }

    @Override
    public boolean ping() {
      if (!isLive()) {
        return false;
      }
      try (Connection c = ds.getConnection()) {
        return c.isValid(2);
      } catch (SQLException e) {
        return false;
      }
    }

    @Override
    public boolean isLive() {
      return groupers.stream().allMatch(Thread::isAlive);
    }

    @Override
    public void close() {
      closed = true;
      for (Thread t : groupers) {
        try {
          t.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      Job<?> left;
      while ((left = grouped.poll()) != null) {
        left.error = new StoreException("store is closed");
        left.done.countDown();
      }
      readDs.close();
      ds.close();
    }
  }
}
