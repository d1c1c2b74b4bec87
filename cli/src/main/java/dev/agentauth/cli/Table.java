package dev.agentauth.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table for people: a header row, then one row per item, columns padded. */
final class Table {
  private final List<String[]> rows = new ArrayList<>();
  private final int columns;

  Table(String... header) {
    this.columns = header.length;
    rows.add(header);
  }

  Table row(Object... cells) {
    if (cells.length != columns) {
      throw new IllegalArgumentException("expected " + columns + " cells, found " + cells.length);
    }
    String[] r = new String[columns];
    for (int i = 0; i < columns; i++) {
      r[i] = ApiCommand.cell(cells[i]);
    }
    rows.add(r);
    return this;
  }

  /** Returns the number of rows below the header. */
  int size() {
    return rows.size() - 1;
  }

  void print(PrintWriter out) {
    int[] width = new int[columns];
    for (String[] r : rows) {
      for (int i = 0; i < columns; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    StringBuilder line = new StringBuilder();
    for (String[] r : rows) {
      line.setLength(0);
      for (int i = 0; i < columns; i++) {
        line.append(r[i]);
        if (i < columns - 1) {
          line.append(" ".repeat(width[i] - r[i].length() + 2));
        }
      }
      out.println(line);
    }
  }
}
