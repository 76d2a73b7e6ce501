// What the figures were measured on. Ratios travel between machines far better than absolute rates,
// but the machine still matters: its CPU, how many cores, the Node version, and how busy it was.
import os from 'node:os';

export interface MachineInfo {
  readonly cpu: string;
  /** Cores available to this process. */
  readonly cores: number;
  readonly node: string;
  /** e.g. `Linux 6.1.0 x64`. */
  readonly os: string;
  readonly memoryGb: number;
  /** 1-minute load average when the run started (0 where the OS has none): above `cores` means shared. */
  readonly loadAverage1m: number;
}

export function describeMachine(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    memoryGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    loadAverage1m: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
  };
}
