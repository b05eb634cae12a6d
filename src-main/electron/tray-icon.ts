// The tray icon, drawn in code and encoded as PNG at run time: no binary asset in the repository
// and nothing downloaded. A rounded square with a gate (two posts under an arch).
import { deflateSync } from 'node:zlib';

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** A minimal PNG encoder for 8-bit RGBA pixels (colour type 6, no filtering). */
export function encodePng(width: number, height: number, rgba: Uint8Array): Buffer {
  if (rgba.length !== width * height * 4) throw new Error('rgba must hold width * height * 4 bytes');
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const rows = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y += 1) {
    rows[y * (width * 4 + 1)] = 0; // filter: none
    Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(rows, y * (width * 4 + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export interface IconStyle {
  /** macOS wants a template image: black shapes on transparency, tinted by the system. */
  template: boolean;
  /** A stopped gateway shows a grey square instead of the coloured one. */
  running: boolean;
}

/** Draws the icon at `size` pixels square; the shapes are defined on a 16-unit grid and scaled. */
export function renderTrayIcon(size: number, style: IconStyle): Uint8Array {
  const pixels = new Uint8Array(size * size * 4);
  const background: [number, number, number] = style.template ? [0, 0, 0] : style.running ? [15, 118, 110] : [107, 114, 128];
  const unit = size / 16;
  const radius = 3 * unit;
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      // Sample the centre of the pixel in grid units.
      const gx = (x + 0.5) / unit;
      const gy = (y + 0.5) / unit;
      const inSquare = isInsideRoundedSquare(x + 0.5, y + 0.5, size, radius);
      const isGate = isGatePixel(gx, gy);
      const offset = (y * size + x) * 4;
      if (!inSquare) continue;
      if (isGate) {
        // The gate is cut out of the square in the template image, white on the coloured one.
        if (style.template) continue;
        pixels.set([255, 255, 255, 255], offset);
      } else {
        pixels.set([...background, 255], offset);
      }
    }
  }
  return pixels;
}

function isInsideRoundedSquare(px: number, py: number, size: number, radius: number): boolean {
  const cx = Math.min(Math.max(px, radius), size - radius);
  const cy = Math.min(Math.max(py, radius), size - radius);
  return (px - cx) ** 2 + (py - cy) ** 2 <= radius ** 2;
}

function isGatePixel(gx: number, gy: number): boolean {
  const isLeftPost = gx >= 4 && gx < 6 && gy >= 7 && gy < 13;
  const isRightPost = gx >= 10 && gx < 12 && gy >= 7 && gy < 13;
  // The arch: a half ring centred at (8, 7) between radius 2 and 4.
  const distance = Math.hypot(gx - 8, gy - 7);
  const isArch = gy < 7 && distance >= 2 && distance < 4;
  return isLeftPost || isRightPost || isArch;
}

export function trayIconPng(size: number, style: IconStyle): Buffer {
  return encodePng(size, size, renderTrayIcon(size, style));
}
