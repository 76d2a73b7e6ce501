// The simulator's fixed test credentials, in a module of their own: `capibot sim --help` prints them
// without loading the simulator.
import type { Credentials } from '../weex/signer.ts';

/**
 * Fixed, documented test credentials, used when none are configured (the CLI warns). Never valid
 * anywhere but on a local simulator.
 */
export const SIM_TEST_CREDENTIALS: Credentials = {
  apiKey: 'capibot-sim-key',
  secret: 'capibot-sim-secret',
  passphrase: 'capibot-sim-passphrase',
};
