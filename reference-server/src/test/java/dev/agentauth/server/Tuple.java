package dev.agentauth.server;

/** Pairs for the fuzz test's generators ({@link Gen#frequencyOf} weights, combined values). */
final class Tuple {
  private Tuple() {}

  /** Two values. */
  record Tuple2<A, B>(A get1, B get2) {}

  static <A, B> Tuple2<A, B> of(A a, B b) {
    return new Tuple2<>(a, b);
  }
}
