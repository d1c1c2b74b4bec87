package dev.agentauth.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A seeded value generator for the fuzz test: a function of a {@link SplittableRandom}, so that one
 * seed always gives the same sequence of values. The factories and combinators are the few the fuzz
 * test needs; there is no shrinking (a failure names its seed and request instead).
 */
@FunctionalInterface
public interface Gen<T> {
  T next(SplittableRandom r);

  // ---- factories

  /** Always {@code value}. */
  static <T> Gen<T> just(T value) {
    return r -> value;
  }

  /** One of {@code values}, uniformly. */
  @SafeVarargs
  static <T> Gen<T> of(T... values) {
    return of(Arrays.asList(values));
  }

  /** One of {@code values}, uniformly. */
  static <T> Gen<T> of(List<T> values) {
    List<T> copy = new ArrayList<>(values);
    return r -> copy.get(r.nextInt(copy.size()));
  }

  /** The value of one of {@code gens}, chosen uniformly. */
  @SafeVarargs
  static <T> Gen<T> oneOf(Gen<? extends T>... gens) {
    return oneOf(Arrays.asList(gens));
  }

  /** The value of one of {@code gens}, chosen uniformly. */
  static <T> Gen<T> oneOf(List<? extends Gen<? extends T>> gens) {
    List<Gen<? extends T>> copy = new ArrayList<>(gens);
    return r -> copy.get(r.nextInt(copy.size())).next(r);
  }

  /** The value of one of the generators, chosen with the given integer weights. */
  static <T> Gen<T> frequencyOf(List<Tuple.Tuple2<Integer, Gen<T>>> weighted) {
    List<Tuple.Tuple2<Integer, Gen<T>>> copy = List.copyOf(weighted);
    int total = copy.stream().mapToInt(Tuple.Tuple2::get1).sum();
    return r -> {
      int pick = r.nextInt(total);
      for (Tuple.Tuple2<Integer, Gen<T>> w : copy) {
        pick -= w.get1();
        if (pick < 0) {
          return w.get2().next(r);
        }
      }
      throw new IllegalStateException("weights changed");
    };
  }

  /** Integers; {@link Ints#between} bounds them. */
  static Ints integers() {
    return new Ints();
  }

  /** Longs; {@link Longs#between} bounds them. */
  static Longs longs() {
    return new Longs();
  }

  /** Strings of characters from the ranges given with {@link Strings#withCharRange}. */
  static Strings strings() {
    return new Strings(List.of(), 0, 255);
  }

  /** A non-empty-able subset of {@code values}, in their order; see {@link Subsets#ofMinSize}. */
  @SafeVarargs
  static <T> Subsets<T> subsetOf(T... values) {
    return new Subsets<>(Arrays.asList(values), 0);
  }

  /** A subset of {@code values}, in their order; see {@link Subsets#ofMinSize}. */
  static <T> Subsets<T> subsetOf(List<T> values) {
    return new Subsets<>(values, 0);
  }

  /** A value built by applying each {@link Builder#use} step to a fresh builder. */
  static <B> Builder<B> withBuilder(Supplier<B> start) {
    return new Builder<>(r -> start.get());
  }

  static <A, B> Combine2<A, B> combine(Gen<A> a, Gen<B> b) {
    return new Combine2<>(a, b);
  }

  static <A, B, C> Combine3<A, B, C> combine(Gen<A> a, Gen<B> b, Gen<C> c) {
    return new Combine3<>(a, b, c);
  }

  static <A, B, C, D> Combine4<A, B, C, D> combine(Gen<A> a, Gen<B> b, Gen<C> c, Gen<D> d) {
    return new Combine4<>(a, b, c, d);
  }

  static <A, B, C, D, E> Combine5<A, B, C, D, E> combine(
      Gen<A> a, Gen<B> b, Gen<C> c, Gen<D> d, Gen<E> e) {
    return new Combine5<>(a, b, c, d, e);
  }

  static <A, B, C, D, E, F> Combine6<A, B, C, D, E, F> combine(
      Gen<A> a, Gen<B> b, Gen<C> c, Gen<D> d, Gen<E> e, Gen<F> f) {
    return new Combine6<>(a, b, c, d, e, f);
  }

  // ---- combinators

  default <U> Gen<U> map(Function<? super T, ? extends U> f) {
    return r -> f.apply(next(r));
  }

  default <U> Gen<U> flatMap(Function<? super T, ? extends Gen<? extends U>> f) {
    return r -> f.apply(next(r)).next(r);
  }

  /** Null with probability {@code p}, else this generator's value. */
  default Gen<T> injectNull(double p) {
    return r -> r.nextDouble() < p ? null : next(r);
  }

  /** Lists of this generator's values (0 to 10 long unless bounded). */
  default Lists<T> list() {
    return new Lists<>(this, 0, 10);
  }

  // ---- the shapes the factories return

  /** Any integer, or one bounded by {@link #between}. */
  final class Ints implements Gen<Integer> {
    @Override
    public Integer next(SplittableRandom r) {
      return r.nextInt();
    }

    public Gen<Integer> between(int min, int max) {
      return r -> r.nextInt(min, max + 1);
    }
  }

  /** Any long, or one bounded by {@link #between}. */
  final class Longs implements Gen<Long> {
    @Override
    public Long next(SplittableRandom r) {
      return r.nextLong();
    }

    public Gen<Long> between(long min, long max) {
      return r -> r.nextLong(min, max + 1);
    }
  }

  /** Strings from a union of character ranges, of a bounded length. */
  final class Strings implements Gen<String> {
    private final List<char[]> ranges;
    private final int minLength;
    private final int maxLength;

    Strings(List<char[]> ranges, int minLength, int maxLength) {
      this.ranges = ranges;
      this.minLength = minLength;
      this.maxLength = maxLength;
    }

    public Strings withCharRange(char from, char to) {
      List<char[]> more = new ArrayList<>(ranges);
      more.add(new char[] {from, to});
      return new Strings(more, minLength, maxLength);
    }

    public Strings ofMinLength(int n) {
      return new Strings(ranges, n, Math.max(n, maxLength));
    }

    public Strings ofMaxLength(int n) {
      return new Strings(ranges, Math.min(minLength, n), n);
    }

    @Override
    public String next(SplittableRandom r) {
      List<char[]> from = ranges.isEmpty() ? List.of(new char[] {' ', '~'}) : ranges;
      int size = 0;
      for (char[] range : from) {
        size += range[1] - range[0] + 1;
      }
      int length = r.nextInt(minLength, maxLength + 1);
      StringBuilder sb = new StringBuilder(length);
      for (int i = 0; i < length; i++) {
        int pick = r.nextInt(size);
        for (char[] range : from) {
          int width = range[1] - range[0] + 1;
          if (pick < width) {
            sb.append((char) (range[0] + pick));
            break;
          }
          pick -= width;
        }
      }
      return sb.toString();
    }
  }

  /** Lists of a bounded size. */
  final class Lists<T> implements Gen<List<T>> {
    private final Gen<T> element;
    private final int minSize;
    private final int maxSize;

    Lists(Gen<T> element, int minSize, int maxSize) {
      this.element = element;
      this.minSize = minSize;
      this.maxSize = maxSize;
    }

    public Lists<T> ofMinSize(int n) {
      return new Lists<>(element, n, Math.max(n, maxSize));
    }

    public Lists<T> ofMaxSize(int n) {
      return new Lists<>(element, Math.min(minSize, n), n);
    }

    @Override
    public List<T> next(SplittableRandom r) {
      int size = r.nextInt(minSize, maxSize + 1);
      List<T> out = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        out.add(element.next(r));
      }
      return out;
    }
  }

  /** Subsets of a list of values, at least {@code minSize} of them, in the list's order. */
  final class Subsets<T> implements Gen<Set<T>> {
    private final List<T> values;
    private final int minSize;

    Subsets(List<T> values, int minSize) {
      this.values = List.copyOf(values);
      this.minSize = minSize;
    }

    public Subsets<T> ofMinSize(int n) {
      return new Subsets<>(values, n);
    }

    @Override
    public Set<T> next(SplittableRandom r) {
      int size = r.nextInt(minSize, values.size() + 1);
      List<T> shuffled = new ArrayList<>(values);
      for (int i = shuffled.size() - 1; i > 0; i--) {
        int j = r.nextInt(i + 1);
        T t = shuffled.get(i);
        shuffled.set(i, shuffled.get(j));
        shuffled.set(j, t);
      }
      Set<T> chosen = new LinkedHashSet<>(shuffled.subList(0, size));
      Set<T> inOrder = new LinkedHashSet<>();
      for (T v : values) {
        if (chosen.contains(v)) {
          inOrder.add(v);
        }
      }
      return inOrder;
    }
  }

  /** Builds a value step by step: each {@code use(gen).in(step)} applies one generated part. */
  final class Builder<B> {
    private final Gen<B> start;

    Builder(Gen<B> start) {
      this.start = start;
    }

    public <T> Step<B, T> use(Gen<T> part) {
      return new Step<>(start, part);
    }

    public <T> Gen<T> build(Function<B, T> finish) {
      return start.map(finish);
    }
  }

  /** One step of a {@link Builder}. */
  final class Step<B, T> {
    private final Gen<B> before;
    private final Gen<T> part;

    Step(Gen<B> before, Gen<T> part) {
      this.before = before;
      this.part = part;
    }

    public Builder<B> in(BiFunction<B, T, B> step) {
      return new Builder<>(r -> step.apply(before.next(r), part.next(r)));
    }
  }

  record Combine2<A, B>(Gen<A> a, Gen<B> b) {
    public <R> Gen<R> as(BiFunction<A, B, R> f) {
      return r -> f.apply(a.next(r), b.next(r));
    }
  }

  record Combine3<A, B, C>(Gen<A> a, Gen<B> b, Gen<C> c) {
    public <R> Gen<R> as(F3<A, B, C, R> f) {
      return r -> f.apply(a.next(r), b.next(r), c.next(r));
    }
  }

  record Combine4<A, B, C, D>(Gen<A> a, Gen<B> b, Gen<C> c, Gen<D> d) {
    public <R> Gen<R> as(F4<A, B, C, D, R> f) {
      return r -> f.apply(a.next(r), b.next(r), c.next(r), d.next(r));
    }
  }

  record Combine5<A, B, C, D, E>(Gen<A> a, Gen<B> b, Gen<C> c, Gen<D> d, Gen<E> e) {
    public <R> Gen<R> as(F5<A, B, C, D, E, R> f) {
      return r -> f.apply(a.next(r), b.next(r), c.next(r), d.next(r), e.next(r));
    }
  }

  record Combine6<A, B, C, D, E, F>(Gen<A> a, Gen<B> b, Gen<C> c, Gen<D> d, Gen<E> e, Gen<F> f) {
    public <R> Gen<R> as(F6<A, B, C, D, E, F, R> fn) {
      return r -> fn.apply(a.next(r), b.next(r), c.next(r), d.next(r), e.next(r), f.next(r));
    }
  }

  interface F3<A, B, C, R> {
    R apply(A a, B b, C c);
  }

  interface F4<A, B, C, D, R> {
    R apply(A a, B b, C c, D d);
  }

  interface F5<A, B, C, D, E, R> {
    R apply(A a, B b, C c, D d, E e);
  }

  interface F6<A, B, C, D, E, F, R> {
    R apply(A a, B b, C c, D d, E e, F f);
  }
}
