// The benchmark quoter (quoter.ts) as a strategy plugin: `capibot run` loads a strategy file by its
// default export (bench/shared-budget.ts runs three of them).
import { quoter } from './quoter.ts';

export default quoter;
