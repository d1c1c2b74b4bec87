package dev.agentauth.server.store;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store that holds back the receipt signer: until {@link #release()}, a write transaction from a
 * signer or housekeeping thread (storing signatures, sweeping) waits, so receipts pile up pending
 * while everything else runs. Reads are never held.
 */
public final class HeldSignerStore implements Store {
  private final Store delegate;
  private final CountDownLatch released = new CountDownLatch(1);
  private final AtomicInteger held = new AtomicInteger();

  public HeldSignerStore(Store delegate) {
    this.delegate = delegate;
  }

  /** Lets every held and later signing transaction run. */
  public void release() {
    released.countDown();
  }

  /** How many signing transactions have waited here so far. */
  public int held() {
    return held.get();
  }

  private void holdSigner() {
    String name = Thread.currentThread().getName();
    if (!name.startsWith("agentauth-signer") && !name.startsWith("agentauth-housekeeping")) {
      return;
    }
    if (released.getCount() == 0) {
      return;
    }
    held.incrementAndGet();
    try {
      released.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted while held");
    }
  }

  @Override
  public <T> T inTransaction(Work<T> work) {
    holdSigner();
    return delegate.inTransaction(work);
  }

  @Override
  public <T> T inSigningTransaction(Work<T> work) {
    holdSigner();
    return delegate.inSigningTransaction(work);
  }

  @Override
  public <T> T inGroupedTransaction(GroupKey key, CheckWork<T> work) {
    return delegate.inGroupedTransaction(key, work);
  }

  @Override
  public <T> T read(Work<T> work) {
    return delegate.read(work);
  }

  @Override
  public Duration batchLinger() {
    return delegate.batchLinger();
  }

  @Override
  public boolean isReachable() {
    return delegate.isReachable();
  }

  @Override
  public String describe() {
    return "held(" + delegate.describe() + ")";
  }

  @Override
  public void close() {
    release();
    delegate.close();
  }
}
