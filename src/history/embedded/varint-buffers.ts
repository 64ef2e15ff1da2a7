// The bytes of chunks and series blocks: a growable buffer to write and a reader, each with
// single bytes, unsigned varints and zigzag signed varints.
export class Writer {
  private buf = Buffer.allocUnsafe(1024);
  len = 0;
  private room(n: number) {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
  byte(b: number) {
    this.room(1);
    this.buf[this.len++] = b;
  }
  uvarint(n: number) {
    this.room(10);
    while (n >= 0x80) {
      this.buf[this.len++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.len++] = n;
  }
  svarint(n: number) {
    this.uvarint(n >= 0 ? n * 2 : -n * 2 - 1);
  }
  bytes(b: Buffer) {
    this.room(b.length);
    b.copy(this.buf, this.len);
    this.len += b.length;
  }
  done(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

export class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}
  byte(): number {
    if (this.pos >= this.buf.length) throw new Error('chunk truncated');
    return this.buf[this.pos++]!;
  }
  uvarint(): number {
    let n = 0;
    let mul = 1;
    for (;;) {
      const b = this.byte();
      n += (b & 0x7f) * mul;
      if (b < 0x80) return n;
      mul *= 0x80;
    }
  }
  svarint(): number {
    const u = this.uvarint();
    return u % 2 ? -(u + 1) / 2 : u / 2;
  }
}
