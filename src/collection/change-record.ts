import { ByteReader } from '../index/store/byte-reader.js';
import { ByteWriter } from '../index/store/byte-writer.js';

/** One accepted change, as the journal keeps it until a commit makes it part of the index. */
export type ChangeRecord =
  | {
      op: 'put';
      key: string;
      content: Uint8Array;
      contentType: string;
      /** Pushed metadata, names as the client sent them. */
      metadata: Record<string, string[]>;
      /** `X-Service-Push-Received-Time` value set when the change was accepted. */
      receivedTime: string;
      /** The request's filter chain, when it named one. */
      filters: string | undefined;
      /** A binary document's extracted text as HTML (see `filters/binary/`); absent for others. */
      extracted?: string;
    }
  | { op: 'delete'; key: string }
  | { op: 'redirect'; key: string; target: string };

const PUT = 1;
const DELETE = 2;
const REDIRECT = 3;
/** Version 2 adds, after the content of a put, the extracted HTML of a binary document ('' for none). */
const RECORD_VERSION = 2;

/** Layout: version · op · fields (strings length-prefixed UTF-8). Version 1 records are still read. */
export function encodeChange(change: ChangeRecord): Uint8Array {
  const out = new ByteWriter(change.op === 'put' ? change.content.length + 256 : 256);
  out.writeByte(RECORD_VERSION);
  switch (change.op) {
    case 'put': {
      out.writeByte(PUT);
      out.writeString(change.key);
      out.writeString(change.contentType);
      out.writeString(change.receivedTime);
      out.writeString(change.filters ?? '');
      const names = Object.keys(change.metadata);
      out.writeVInt(names.length);
      for (const name of names) {
        const values = change.metadata[name]!;
        out.writeString(name);
        out.writeVInt(values.length);
        for (const value of values) out.writeString(value);
      }
      out.writeVInt(change.content.length);
      out.writeBytes(change.content);
      out.writeString(change.extracted ?? '');
      break;
    }
    case 'delete':
      out.writeByte(DELETE);
      out.writeString(change.key);
      break;
    case 'redirect':
      out.writeByte(REDIRECT);
      out.writeString(change.key);
      out.writeString(change.target);
      break;
  }
  // The writer is this call's own: its bytes need no copy (the journal copies them into its batch).
  return out.view0();
}

export function decodeChange(bytes: Uint8Array): ChangeRecord {
  const input = new ByteReader(bytes);
  const version = input.readByte();
  if (version !== 1 && version !== RECORD_VERSION)
    throw new RangeError(`unknown change record version ${version}`);
  const op = input.readByte();
  switch (op) {
    case PUT: {
      const key = input.readString();
      const contentType = input.readString();
      const receivedTime = input.readString();
      const filters = input.readString();
      const metadata: Record<string, string[]> = {};
      const count = input.readVInt();
      for (let i = 0; i < count; i++) {
        const name = input.readString();
        const values: string[] = [];
        for (let n = input.readVInt(); n > 0; n--) values.push(input.readString());
        metadata[name] = values;
      }
      const content = new Uint8Array(input.readBytes(input.readVInt())); // a copy, not a view of the whole segment
      const extracted = version >= 2 ? input.readString() : '';
      return {
        op: 'put',
        key,
        content,
        contentType,
        metadata,
        receivedTime,
        filters: filters === '' ? undefined : filters,
        ...(extracted === '' ? {} : { extracted }),
      };
    }
    case DELETE:
      return { op: 'delete', key: input.readString() };
    case REDIRECT:
      return { op: 'redirect', key: input.readString(), target: input.readString() };
    default:
      throw new RangeError(`unknown change operation ${op}`);
  }
}
