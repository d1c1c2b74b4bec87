package dev.agentauth.verifier;

import java.time.Instant;

/**
 * Parses full RFC 3339 instants ({@code date-time} of RFC 3339 §5.6): {@code
 * YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)}, with an explicit offset. {@code T} and {@code Z} may
 * be lower case (RFC 3339 §5.6 note). Leap seconds ({@code :60}) are not supported. Fractions
 * beyond nanoseconds are truncated, which keeps every comparison against a nanosecond-precision
 * bound exact. Hand-written: no regex, no allocation besides the result.
 */
final class Rfc3339 {

  private Rfc3339() {}

  /** Returns the instant, or {@code null} when {@code s} is not a full RFC 3339 instant. */
  static Instant parse(String s) {
    int n = s.length();
    if (n < 20) {
      return null;
    }
    int year = digits(s, 0, 4);
    int month = digits(s, 5, 2);
    int day = digits(s, 8, 2);
    int hour = digits(s, 11, 2);
    int minute = digits(s, 14, 2);
    int second = digits(s, 17, 2);
    if ((year | month | day | hour | minute | second) < 0
        || s.charAt(4) != '-'
        || s.charAt(7) != '-'
        || (s.charAt(10) != 'T' && s.charAt(10) != 't')
        || s.charAt(13) != ':'
        || s.charAt(16) != ':') {
      return null;
    }
    if (month < 1
        || month > 12
        || day < 1
        || day > daysInMonth(year, month)
        || hour > 23
        || minute > 59
        || second > 59) {
      return null;
    }
    int i = 19;
    int nanos = 0;
    if (s.charAt(i) == '.') {
      int start = ++i;
      while (i < n) {
        char c = s.charAt(i);
        if (c < '0' || c > '9') {
          break;
        }
        if (i - start < 9) {
          nanos = nanos * 10 + (c - '0');
        }
        i++;
      }
      int count = i - start;
      if (count == 0) {
        return null;
      }
      for (int k = count; k < 9; k++) {
        nanos *= 10;
      }
    }
    if (i >= n) {
      return null;
    }
    char c = s.charAt(i);
    int offsetSeconds;
    if (c == 'Z' || c == 'z') {
      if (i + 1 != n) {
        return null;
      }
      offsetSeconds = 0;
    } else if (c == '+' || c == '-') {
      if (i + 6 != n || s.charAt(i + 3) != ':') {
        return null;
      }
      int oh = digits(s, i + 1, 2);
      int om = digits(s, i + 4, 2);
      if (oh < 0 || om < 0 || oh > 23 || om > 59) {
        return null;
      }
      offsetSeconds = (oh * 3600 + om * 60) * (c == '-' ? -1 : 1);
    } else {
      return null;
    }
    long epochSecond =
        epochDay(year, month, day) * 86_400L + hour * 3600L + minute * 60L + second - offsetSeconds;
    return Instant.ofEpochSecond(epochSecond, nanos);
  }

  private static int digits(String s, int from, int count) {
    int v = 0;
    for (int i = from; i < from + count; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  private static int daysInMonth(int year, int month) {
    return switch (month) {
      case 2 -> (year % 4 == 0) && (year % 100 != 0 || year % 400 == 0) ? 29 : 28;
      case 4, 6, 9, 11 -> 30;
      default -> 31;
    };
  }

  /** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
  private static long epochDay(int year, int month, int day) {
    long y = month <= 2 ? year - 1 : year;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153L * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146_097 + doe - 719_468;
  }
}
