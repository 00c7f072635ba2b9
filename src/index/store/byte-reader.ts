const decoder = new TextDecoder('utf-8', { fatal: true });

/** Reads what {@link ByteWriter} wrote. Throws RangeError when reading past the end. */
export class ByteReader {
  readonly bytes: Uint8Array;
  private view: DataView;
  pos: number;
  readonly end: number;

  constructor(bytes: Uint8Array, start = 0, end = bytes.length) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  readByte(): number {
    if (this.pos >= this.end) throw new RangeError('read past end');
    return this.bytes[this.pos++]!;
  }

  readVInt(): number {
    if (this.pos >= this.end) throw new RangeError('read past end');
    const bytes = this.bytes;
    let b = bytes[this.pos++]!;
    if (b < 0x80) return b;
    let value = b & 0x7f;
    let shift = 7;
    for (;;) {
      if (this.pos >= this.end) throw new RangeError('read past end');
      b = bytes[this.pos++]!;
      if (shift < 28) value |= (b & 0x7f) << shift;
      else value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return shift < 28 ? value >>> 0 : value;
      shift += 7;
      if (shift > 63) throw new RangeError('malformed variable-length integer');
    }
  }

  readUint32(): number {
    if (this.pos + 4 > this.end) throw new RangeError('read past end');
    const value = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return value;
  }

  readFloat64(): number {
    if (this.pos + 8 > this.end) throw new RangeError('read past end');
    const value = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return value;
  }

  readBytes(length: number): Uint8Array {
    if (this.pos + length > this.end) throw new RangeError('read past end');
    const out = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  readString(): string {
    const length = this.readVInt();
    if (this.pos + length > this.end) throw new RangeError('read past end');
    const start = this.pos;
    this.pos += length;
    if (length <= 64) {
      let ascii = true;
      for (let i = start; i < this.pos; i++) {
        if (this.bytes[i]! > 0x7f) {
          ascii = false;
          break;
        }
      }
      if (ascii)
        return String.fromCharCode.apply(null, this.bytes.subarray(start, this.pos) as unknown as number[]);
    }
    return decoder.decode(this.bytes.subarray(start, this.pos));
  }
}
