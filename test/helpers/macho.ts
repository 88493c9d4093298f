/**
 * A thin 64-bit Mach-O executable, read as far as Apple Silicon's kernel checks it before it runs one: its CPU type,
 * its segments, and its code signature (LC_CODE_SIGNATURE: a superblob whose CodeDirectory holds a hash of every page
 * of the file up to its code limit). An arm64 executable without a valid signature, ad hoc at least, is killed on
 * launch; this machine has no macOS to launch one, so the tests check what the kernel would.
 */
import { createHash } from "node:crypto";

/** What {@link readMachO} found. */
export interface MachO {
  cpuType: number;
  segments: string[];
  signature?: {
    /** CS_ADHOC: signed with no identity, as `codesign --sign -` and Bun's compiler sign. */
    adhoc: boolean;
    /** 2 is SHA-256. */
    hashType: number;
    pages: number;
    /** Pages whose hash in the CodeDirectory does not match the file. */
    badPages: number[];
  };
}

const MH_MAGIC_64 = 0xfeedfacf;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CS_ADHOC = 0x2;

/** Reads `binary`'s header, segments and code signature; throws when it is not a thin 64-bit Mach-O. */
export function readMachO(binary: Buffer): MachO {
  if (binary.readUInt32LE(0) !== MH_MAGIC_64) throw new Error("not a thin 64-bit Mach-O");
  const cpuType = binary.readInt32LE(4);
  const commands = binary.readUInt32LE(16);
  const segments: string[] = [];
  let signature: MachO["signature"];
  for (let i = 0, at = 32; i < commands; i++) {
    const command = binary.readUInt32LE(at);
    if (command === LC_SEGMENT_64) segments.push(binary.toString("latin1", at + 8, at + 24).replace(/\0+$/, ""));
    if (command === LC_CODE_SIGNATURE) signature = readSignature(binary, binary.readUInt32LE(at + 8));
    at += binary.readUInt32LE(at + 4);
  }
  return { cpuType, segments, signature };
}

function readSignature(binary: Buffer, superblob: number): MachO["signature"] {
  const blobs = binary.readUInt32BE(superblob + 8);
  for (let i = 0; i < blobs; i++) {
    const cd = superblob + binary.readUInt32BE(superblob + 12 + 8 * i + 4);
    if (binary.readUInt32BE(cd) !== CSMAGIC_CODEDIRECTORY) continue;
    const flags = binary.readUInt32BE(cd + 12);
    const hashOffset = binary.readUInt32BE(cd + 16);
    const pages = binary.readUInt32BE(cd + 28);
    const codeLimit = binary.readUInt32BE(cd + 32);
    const hashSize = binary.readUInt8(cd + 36);
    const hashType = binary.readUInt8(cd + 37);
    const pageSize = 2 ** binary.readUInt8(cd + 39);
    const algorithm = hashType === 2 ? "sha256" : "sha1";
    const badPages: number[] = [];
    for (let page = 0; page < pages; page++) {
      const content = binary.subarray(page * pageSize, Math.min((page + 1) * pageSize, codeLimit));
      const stored = binary.subarray(cd + hashOffset + page * hashSize, cd + hashOffset + (page + 1) * hashSize);
      if (!createHash(algorithm).update(content).digest().subarray(0, hashSize).equals(stored)) badPages.push(page);
    }
    return { adhoc: (flags & CS_ADHOC) !== 0, hashType, pages, badPages };
  }
  return undefined;
}
