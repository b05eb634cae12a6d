import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, encodePng, renderTrayIcon, trayIconPng } from '../../../src-main/electron/tray-icon';
import { baseUrlOf, buildTrayMenu, trayTooltip } from '../../../src-main/electron/tray-menu';

interface PngChunk {
  type: string;
  data: Buffer;
  crc: number;
}

function readChunks(png: Buffer): PngChunk[] {
  const chunks: PngChunk[] = [];
  for (let offset = 8; offset < png.length; ) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('ascii', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    chunks.push({ type, data, crc: png.readUInt32BE(offset + 8 + length) });
    offset += 12 + length;
  }
  return chunks;
}

describe('tray icon', () => {
  it('is a valid PNG of the requested size with correct checksums', () => {
    const png = trayIconPng(32, { template: false, running: true });
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const chunks = readChunks(png);
    expect(chunks.map((chunk) => chunk.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    for (const chunk of chunks) expect(chunk.crc).toBe(crc32(Buffer.concat([Buffer.from(chunk.type, 'ascii'), chunk.data])));
    const header = chunks[0].data;
    expect([header.readUInt32BE(0), header.readUInt32BE(4), header[8], header[9]]).toEqual([32, 32, 8, 6]);
    expect(inflateSync(chunks[1].data).length).toBe((32 * 4 + 1) * 32);
  });

  it('matches the standard CRC-32 check value', () => {
    expect(crc32(Buffer.from('123456789', 'ascii'))).toBe(0xcbf43926);
  });

  it('draws an opaque shape with transparent corners and white gate pixels', () => {
    const pixels = renderTrayIcon(16, { template: false, running: true });
    const alphaAt = (x: number, y: number): number => pixels[(y * 16 + x) * 4 + 3];
    expect(alphaAt(0, 0)).toBe(0);
    expect(alphaAt(8, 1)).toBe(255);
    const gate = Array.from({ length: 16 * 16 }, (_, i) => i).filter((i) => pixels[i * 4] === 255 && pixels[i * 4 + 3] === 255);
    expect(gate.length).toBeGreaterThan(10);
  });

  it('uses only black for the macOS template image and grey when stopped', () => {
    const template = renderTrayIcon(16, { template: true, running: true });
    for (let i = 0; i < template.length; i += 4) expect([template[i], template[i + 1], template[i + 2]]).toEqual([0, 0, 0]);
    const stopped = renderTrayIcon(16, { template: false, running: false });
    expect(Array.from(stopped.subarray((1 * 16 + 8) * 4, (1 * 16 + 8) * 4 + 3))).toEqual([107, 114, 128]);
  });

  it('refuses pixel data of the wrong length', () => {
    expect(() => encodePng(2, 2, new Uint8Array(3))).toThrow();
  });
});

describe('tray menu', () => {
  const running = { url: 'http://127.0.0.1:8787', startAtLogin: false, canStartAtLogin: true };

  it('says where the gateway runs, in the tooltip and a disabled first item', () => {
    expect(trayTooltip(running)).toBe('Gatehouse: running at http://127.0.0.1:8787');
    expect(buildTrayMenu(running)[0]).toEqual({ kind: 'status', label: 'Running at http://127.0.0.1:8787' });
  });

  it('offers open, copy base URL, start at login and quit', () => {
    const entries = buildTrayMenu(running).filter((entry) => entry.kind === 'action' || entry.kind === 'checkbox');
    expect(entries.map((entry) => entry.action)).toEqual(['open-window', 'copy-base-url', 'toggle-start-at-login', 'quit']);
    expect(entries[1].label).toContain('http://127.0.0.1:8787/v1');
  });

  it('copies the OpenAI-compatible base URL, which ends in /v1', () => {
    expect(baseUrlOf('http://127.0.0.1:8787')).toBe('http://127.0.0.1:8787/v1');
    expect(baseUrlOf('http://127.0.0.1:8787/')).toBe('http://127.0.0.1:8787/v1');
  });

  it('has no copy item while the gateway is stopped and no login item where unsupported', () => {
    const entries = buildTrayMenu({ url: null, startAtLogin: false, canStartAtLogin: false });
    expect(entries.some((entry) => entry.kind === 'action' && entry.action === 'copy-base-url')).toBe(false);
    expect(entries.some((entry) => entry.kind === 'checkbox')).toBe(false);
    expect(trayTooltip({ url: null, startAtLogin: false, canStartAtLogin: false })).toContain('not running');
  });
});
