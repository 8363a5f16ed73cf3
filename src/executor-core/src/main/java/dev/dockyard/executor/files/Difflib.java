package dev.dockyard.executor.files;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Python's {@code difflib.unified_diff} (SequenceMatcher without a junk function, with its
 * "autojunk" of popular lines), ported line for line: OpenHands' {@code get_diff} is built on it,
 * and another diff algorithm (Myers', say) lines up ambiguous changes differently, so the diff an
 * agent sees would not be OpenHands'.
 */
final class Difflib {

    private Difflib() {
    }

    /** One opcode of SequenceMatcher.get_opcodes: a[i1:i2] becomes b[j1:j2]. */
    record Opcode(String tag, int i1, int i2, int j1, int j2) {
    }

    private record Match(int a, int b, int size) {
    }

    /** unified_diff(a, b, fromfile, tofile, n=context) without line terminators. */
    static List<String> unifiedDiff(List<String> a, List<String> b, String fromFile, String toFile, int context) {
        List<String> out = new ArrayList<>();
        for (List<Opcode> group : groupedOpcodes(a, b, context)) {
            if (out.isEmpty()) {
                out.add("--- " + fromFile);
                out.add("+++ " + toFile);
            }
            Opcode first = group.get(0);
            Opcode last = group.get(group.size() - 1);
            out.add("@@ -" + range(first.i1(), last.i2()) + " +" + range(first.j1(), last.j2()) + " @@");
            for (Opcode op : group) {
                if (op.tag().equals("equal")) {
                    a.subList(op.i1(), op.i2()).forEach(line -> out.add(" " + line));
                    continue;
                }
                if (op.tag().equals("replace") || op.tag().equals("delete")) {
                    a.subList(op.i1(), op.i2()).forEach(line -> out.add("-" + line));
                }
                if (op.tag().equals("replace") || op.tag().equals("insert")) {
                    b.subList(op.j1(), op.j2()).forEach(line -> out.add("+" + line));
                }
            }
        }
        return out;
    }

    /** _format_range_unified: "3" for one line, "2,0" (the line before) for none. */
    private static String range(int start, int stop) {
        int beginning = start + 1;
        int length = stop - start;
        if (length == 1) {
            return String.valueOf(beginning);
        }
        if (length == 0) {
            beginning--;
        }
        return beginning + "," + length;
    }

    static List<List<Opcode>> groupedOpcodes(List<String> a, List<String> b, int n) {
        List<Opcode> codes = new ArrayList<>(opcodes(a, b));
        if (codes.isEmpty()) {
            codes.add(new Opcode("equal", 0, 1, 0, 1));
        }
        Opcode head = codes.get(0);
        if (head.tag().equals("equal")) {
            codes.set(0, new Opcode("equal", Math.max(head.i1(), head.i2() - n), head.i2(),
                    Math.max(head.j1(), head.j2() - n), head.j2()));
        }
        Opcode tail = codes.get(codes.size() - 1);
        if (tail.tag().equals("equal")) {
            codes.set(codes.size() - 1, new Opcode("equal", tail.i1(), Math.min(tail.i2(), tail.i1() + n),
                    tail.j1(), Math.min(tail.j2(), tail.j1() + n)));
        }
        List<List<Opcode>> groups = new ArrayList<>();
        List<Opcode> group = new ArrayList<>();
        for (Opcode op : codes) {
            int i1 = op.i1();
            int j1 = op.j1();
            if (op.tag().equals("equal") && op.i2() - i1 > 2 * n) {
                group.add(new Opcode("equal", i1, Math.min(op.i2(), i1 + n), j1, Math.min(op.j2(), j1 + n)));
                groups.add(group);
                group = new ArrayList<>();
                i1 = Math.max(i1, op.i2() - n);
                j1 = Math.max(j1, op.j2() - n);
            }
            group.add(new Opcode(op.tag(), i1, op.i2(), j1, op.j2()));
        }
        if (!group.isEmpty() && !(group.size() == 1 && group.get(0).tag().equals("equal"))) {
            groups.add(group);
        }
        return groups;
    }

    static List<Opcode> opcodes(List<String> a, List<String> b) {
        List<Opcode> answer = new ArrayList<>();
        int i = 0;
        int j = 0;
        for (Match m : matchingBlocks(a, b)) {
            String tag = i < m.a() && j < m.b() ? "replace" : i < m.a() ? "delete" : j < m.b() ? "insert" : "";
            if (!tag.isEmpty()) {
                answer.add(new Opcode(tag, i, m.a(), j, m.b()));
            }
            i = m.a() + m.size();
            j = m.b() + m.size();
            if (m.size() > 0) {
                answer.add(new Opcode("equal", m.a(), i, m.b(), j));
            }
        }
        return answer;
    }

    private static List<Match> matchingBlocks(List<String> a, List<String> b) {
        Map<String, List<Integer>> b2j = b2j(b);
        List<Match> blocks = new ArrayList<>();
        Deque<int[]> queue = new ArrayDeque<>();
        queue.push(new int[] {0, a.size(), 0, b.size()});
        while (!queue.isEmpty()) {
            int[] q = queue.pop();
            int alo = q[0];
            int ahi = q[1];
            int blo = q[2];
            int bhi = q[3];
            Match x = longestMatch(a, b, b2j, alo, ahi, blo, bhi);
            if (x.size() > 0) {
                blocks.add(x);
                if (alo < x.a() && blo < x.b()) {
                    queue.push(new int[] {alo, x.a(), blo, x.b()});
                }
                if (x.a() + x.size() < ahi && x.b() + x.size() < bhi) {
                    queue.push(new int[] {x.a() + x.size(), ahi, x.b() + x.size(), bhi});
                }
            }
        }
        blocks.sort(Comparator.comparingInt(Match::a).thenComparingInt(Match::b).thenComparingInt(Match::size));
        List<Match> nonAdjacent = new ArrayList<>();
        int i1 = 0;
        int j1 = 0;
        int k1 = 0;
        for (Match m : blocks) {
            if (i1 + k1 == m.a() && j1 + k1 == m.b()) {
                k1 += m.size();
            } else {
                if (k1 > 0) {
                    nonAdjacent.add(new Match(i1, j1, k1));
                }
                i1 = m.a();
                j1 = m.b();
                k1 = m.size();
            }
        }
        if (k1 > 0) {
            nonAdjacent.add(new Match(i1, j1, k1));
        }
        nonAdjacent.add(new Match(a.size(), b.size(), 0));
        return nonAdjacent;
    }

    /** Where each line of b is; lines in over 1% of a b of 200 lines or more are left out (autojunk). */
    private static Map<String, List<Integer>> b2j(List<String> b) {
        Map<String, List<Integer>> b2j = new HashMap<>();
        for (int i = 0; i < b.size(); i++) {
            b2j.computeIfAbsent(b.get(i), k -> new ArrayList<>()).add(i);
        }
        int n = b.size();
        if (n >= 200) {
            int ntest = n / 100 + 1;
            Set<String> popular = new HashSet<>();
            b2j.forEach((line, indices) -> {
                if (indices.size() > ntest) {
                    popular.add(line);
                }
            });
            popular.forEach(b2j::remove);
        }
        return b2j;
    }

    private static Match longestMatch(List<String> a, List<String> b, Map<String, List<Integer>> b2j,
                                      int alo, int ahi, int blo, int bhi) {
        int besti = alo;
        int bestj = blo;
        int bestsize = 0;
        Map<Integer, Integer> j2len = new HashMap<>();
        for (int i = alo; i < ahi; i++) {
            Map<Integer, Integer> newj2len = new HashMap<>();
            for (int j : b2j.getOrDefault(a.get(i), List.of())) {
                if (j < blo) {
                    continue;
                }
                if (j >= bhi) {
                    break;
                }
                int k = j2len.getOrDefault(j - 1, 0) + 1;
                newj2len.put(j, k);
                if (k > bestsize) {
                    besti = i - k + 1;
                    bestj = j - k + 1;
                    bestsize = k;
                }
            }
            j2len = newj2len;
        }
        // no junk function: only the extension by equal (popular) lines on each side applies
        while (besti > alo && bestj > blo && a.get(besti - 1).equals(b.get(bestj - 1))) {
            besti--;
            bestj--;
            bestsize++;
        }
        while (besti + bestsize < ahi && bestj + bestsize < bhi
                && a.get(besti + bestsize).equals(b.get(bestj + bestsize))) {
            bestsize++;
        }
        return new Match(besti, bestj, bestsize);
    }
}
