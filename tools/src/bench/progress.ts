/**
 * The orders bench's progress on stderr: orders created and paid (the supplier's record) and
 * completed (the workflows'), redrawn in place on a terminal, a line now and then otherwise.
 */
export interface PhaseCounts {
  created: number;
  paid: number;
  completed: number;
}

const BAR_WIDTH = 24;
/** Without a terminal, at most one line this often (and one at the end). */
const LINE_EVERY_MS = 5_000;

export class ProgressBar {
  private readonly started = Date.now();
  private lastLine = '';
  private lastWrittenAt = 0;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  update(counts: PhaseCounts): void {
    const line = this.render(counts);
    if (this.out.isTTY) {
      this.out.write(`\r${line}\u001b[K`);
      return;
    }
    const changed = line.replace(/ \d+ s$/, '') !== this.lastLine.replace(/ \d+ s$/, '');
    if (changed && Date.now() - this.lastWrittenAt >= LINE_EVERY_MS) this.writeLine(line);
  }

  done(counts: PhaseCounts): void {
    const line = this.render(counts);
    if (this.out.isTTY) this.out.write(`\r${line}\u001b[K\n`);
    else this.writeLine(line);
  }

  private writeLine(line: string): void {
    this.out.write(`${line}\n`);
    this.lastLine = line;
    this.lastWrittenAt = Date.now();
  }

  private render({ created, paid, completed }: PhaseCounts): string {
    const cells = (n: number) => Math.round((Math.min(n, this.total) / this.total) * BAR_WIDTH);
    const done = cells(completed);
    const paidOnly = Math.max(0, cells(paid) - done);
    const createdOnly = Math.max(0, cells(created) - done - paidOnly);
    const bar =
      '#'.repeat(done) +
      '='.repeat(paidOnly) +
      '-'.repeat(createdOnly) +
      ' '.repeat(Math.max(0, BAR_WIDTH - done - paidOnly - createdOnly));
    const seconds = Math.round((Date.now() - this.started) / 1000);
    const of = `/${this.total}`;
    return `${this.label} [${bar}] created ${created}${of} paid ${paid}${of} completed ${completed}${of} ${seconds} s`;
  }
}
