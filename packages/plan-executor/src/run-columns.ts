/**
 * The numeric columns of a run, as views of one `ArrayBuffer`: one allocation per run instead of one per column (each
 * typed array of more than 64 bytes gets its own off-heap backing store, a malloc and GC bookkeeping; ten of them cost
 * about 2 µs of a 100-step run, as much as the steps' own bookkeeping). 8-byte columns come first, so every view is
 * aligned.
 */
export class RunColumns {
  private readonly buffer: ArrayBuffer;
  private offset = 0;

  constructor(
    private readonly capacity: number,
    /** How many columns of each kind will be taken. */
    counts: { readonly float64: number; readonly int32: number; readonly uint8: number },
  ) {
    this.buffer = new ArrayBuffer(capacity * (8 * counts.float64 + 4 * counts.int32 + counts.uint8));
  }

  /** The next 8-byte column; take these first (alignment). */
  float64(): Float64Array {
    const view = new Float64Array(this.buffer, this.offset, this.capacity);
    this.offset += view.byteLength;
    return view;
  }

  /** The next 4-byte column, after the 8-byte ones. */
  int32(): Int32Array {
    const view = new Int32Array(this.buffer, this.offset, this.capacity);
    this.offset += view.byteLength;
    return view;
  }

  /** The next 1-byte column, last. */
  uint8(): Uint8Array {
    const view = new Uint8Array(this.buffer, this.offset, this.capacity);
    this.offset += view.byteLength;
    return view;
  }
}
