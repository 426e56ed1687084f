/**
 * Faults an operator causes by deploying a worse build of the online RAG, with no fault API: the
 * process is redeployed on the same URL, serving the same index behind its alias, with one setting
 * changed. Issue 27: a prompt template that regressed (the LangChain RAG's `LLM_PROMPT_VERSION`
 * naming a zero-shot prompt a 270M completion model follows badly, services/langchain-rag/src/prompt.ts:
 * instruct-v2, whose answers come back empty, or zero-shot-v2, whose answers wander).
 * Nothing here undoes it: only the immune system's repair (the generator pin through the RAG's
 * repair hook) does, until the next deploy; the harness's reset redeploys the original settings.
 */

import { DEPLOY_FAULT_KINDS, FAULT_CATALOGUE } from '@rag-immune/rag-contract';

/** The deploy faults (this file); named in the fault catalogue (@rag-immune/rag-contract). */
export { DEPLOY_FAULT_KINDS };
export type DeployFaultKind = (typeof DEPLOY_FAULT_KINDS)[number];

export const isDeployFault = (kind: string): kind is DeployFaultKind => (DEPLOY_FAULT_KINDS as readonly string[]).includes(kind);

/** Redeploys the online RAG with these settings over its own (same URL, same index): a RagPairProcesses' redeployOnline. */
export type RedeployOnline = (env: Record<string, string>) => Promise<void>;

/** The prompt versions a prompt-regressed fault may deploy (the fault's modes): regressed ones of the LangChain RAG's PROMPTS. */
export const REGRESSED_PROMPTS: readonly string[] = FAULT_CATALOGUE['prompt-regressed'].modes;

/** The settings a deploy fault's new build runs with. */
export function deployedSettings(kind: DeployFaultKind, mode: string): Record<string, string> {
  if (!(REGRESSED_PROMPTS as readonly string[]).includes(mode))
    throw new Error(`${kind}: mode ${mode} is not a regressed prompt (${REGRESSED_PROMPTS.join(', ')})`);
  return { LLM_PROMPT_VERSION: mode };
}

/** Deploys the faulty build; a deploy fault is global (no knowledge ids: every probe goes through the generator). */
export async function deployFault(redeploy: RedeployOnline | undefined, kind: DeployFaultKind, mode: string): Promise<null> {
  if (redeploy === undefined) throw new Error(`${kind} redeploys the online RAG: the trial context needs redeployOnline`);
  await redeploy(deployedSettings(kind, mode));
  return null;
}

/**
 * A knowledge fault a RAG without a fault API takes as a deploy (issue 39): the LangChain RAG
 * redeployed with its primary feed serving, for these ids of the changelog source, only what it had
 * published by `staleAsOf` (services/langchain-rag's FEED_PRIMARY_STALE_*); the redeploy re-syncs the
 * index from that feed at start. Its backup feed stays current: the switch to it heals.
 */
export function staleFeedSettings(knowledgeIds: readonly string[], staleAsOf: string): Record<string, string> {
  if (knowledgeIds.length === 0) throw new Error('knowledge-source-failure (stale): no knowledge ids to make stale');
  return {
    FEED_PRIMARY_STALE_AS_OF: staleAsOf,
    FEED_PRIMARY_STALE_SOURCE: 'debian-changelog',
    FEED_PRIMARY_STALE_IDS: knowledgeIds.join(','),
  };
}

/** Deploys the stale primary feed; returns the ids it went stale for. */
export async function deployStaleFeed(
  redeploy: RedeployOnline | undefined,
  knowledgeIds: readonly string[],
  staleAsOf: string,
): Promise<string[]> {
  if (redeploy === undefined) throw new Error('knowledge-source-failure redeploys the online RAG: the trial context needs redeployOnline');
  await redeploy(staleFeedSettings(knowledgeIds, staleAsOf));
  return [...knowledgeIds];
}
