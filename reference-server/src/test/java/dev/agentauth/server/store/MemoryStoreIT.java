package dev.agentauth.server.store;

/** The store conformance suite against the in-memory reference store. */
class MemoryStoreIT extends StoreConformance {
  @Override
  protected Store newStore() {
    return new MemoryStore();
  }
}
