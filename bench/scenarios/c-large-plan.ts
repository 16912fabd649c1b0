// (c) A large plan: 200 independent tasks at 0 ms, parallel 16, once: history sizes at scale.
import type { Ctx } from '../context';
import { replanner } from '../measure';
import { independent } from '../plans';

export async function largePlanScenario(ctx: Ctx) {
  ctx.opts.log?.('(c) a large plan');
  const plan = independent(ctx.opts.smoke ? 10 : 200);
  const { figures } = await replanner(ctx, plan, 0, 16, 1, { planning: { maxTasks: 200 } });
  return figures;
}
