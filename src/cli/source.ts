/** What a command reads its document from: a file, or stdin for `-`. */
import { readFile } from 'node:fs/promises';

export async function readSource(source: string): Promise<string> {
  if (source !== '-') return readFile(source, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
