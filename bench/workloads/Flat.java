// SPDX-License-Identifier: GPL-2.0
// bench/jit_cost.sh: the JVM's row, started with no flag: main -> loop ->
// f17 .. f1 -> leaf, every one a different method; each is too big for C2 to
// inline at a hot call (its bytecode past FreqInlineSize's 325 bytes, in a
// branch never taken), so the frames stay frames when compiled.
//   java -cp DIR Flat SECONDS
public class Flat {
	static long sink;
	static boolean never = System.getProperty("flat.never") != null;

	static long pad(long x) { return x; }

	static long leaf(long i) {
		long s = 0;
		for (int k = 0; k < 3000; k++)
			s += (k * i) % 7;
		return s;
	}

	static long f1(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return leaf(i) + 1;
	}

	static long f2(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f1(i) + 2;
	}

	static long f3(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f2(i) + 3;
	}

	static long f4(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f3(i) + 4;
	}

	static long f5(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f4(i) + 5;
	}

	static long f6(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f5(i) + 6;
	}

	static long f7(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f6(i) + 7;
	}

	static long f8(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f7(i) + 8;
	}

	static long f9(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f8(i) + 9;
	}

	static long f10(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f9(i) + 10;
	}

	static long f11(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f10(i) + 11;
	}

	static long f12(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f11(i) + 12;
	}

	static long f13(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f12(i) + 13;
	}

	static long f14(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f13(i) + 14;
	}

	static long f15(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f14(i) + 15;
	}

	static long f16(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f15(i) + 16;
	}

	static long f17(long i) {
		if (never) {
			sink += pad(0) + pad(sink) * 0;
			sink += pad(1) + pad(sink) * 1;
			sink += pad(2) + pad(sink) * 2;
			sink += pad(3) + pad(sink) * 3;
			sink += pad(4) + pad(sink) * 4;
			sink += pad(5) + pad(sink) * 5;
			sink += pad(6) + pad(sink) * 6;
			sink += pad(7) + pad(sink) * 7;
			sink += pad(8) + pad(sink) * 8;
			sink += pad(9) + pad(sink) * 9;
			sink += pad(10) + pad(sink) * 10;
			sink += pad(11) + pad(sink) * 11;
			sink += pad(12) + pad(sink) * 12;
			sink += pad(13) + pad(sink) * 13;
			sink += pad(14) + pad(sink) * 14;
			sink += pad(15) + pad(sink) * 15;
			sink += pad(16) + pad(sink) * 16;
			sink += pad(17) + pad(sink) * 17;
			sink += pad(18) + pad(sink) * 18;
			sink += pad(19) + pad(sink) * 19;
			sink += pad(20) + pad(sink) * 20;
			sink += pad(21) + pad(sink) * 21;
			sink += pad(22) + pad(sink) * 22;
			sink += pad(23) + pad(sink) * 23;
		}
		return f16(i) + 17;
	}

	static void loop(double seconds) {
		long end = System.nanoTime() + (long)(seconds * 1e9), i = 0;
		while (System.nanoTime() < end)
			sink += f17(i++);
	}

	public static void main(String[] args) {
		loop(Double.parseDouble(args[0]));
		System.out.println(sink == 42 ? "" : "ok");
	}
}
