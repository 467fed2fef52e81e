/**
 * A new n8n process, as the package sees it: a fresh copy of its modules, whose module-level
 * memory (remembered deliveries, runs in flight, cached credentials) starts empty. "Restart n8n"
 * is "load fresh modules"; "two processes" is two copies. A node and the modules a test inspects
 * beside it come from one call, so the node uses that very copy.
 */
import * as hostWorkflow from 'n8n-workflow';
import type * as DedupeModule from '../../nodes/ConsentFlowTrigger/dedupe';
import type * as TriggerModule from '../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import type * as CredentialCacheModule from '../../nodes/shared/webhook/verify';

export type Dedupe = typeof DedupeModule;
export type CredentialCache = typeof CredentialCacheModule;

/**
 * What `load` loads, from a module registry of its own (jest.isolateModules). It loads with
 * jest.requireActual (the lint forbids require in TypeScript), which inside is that registry.
 */
export function freshModules<T>(load: () => T, host: object = hostWorkflow): T {
	let loaded: { modules: T } | undefined;
	jest.isolateModules(() => {
		// n8n-workflow is the host's (a peer dependency): every copy shares the one the tests use
		jest.doMock('n8n-workflow', () => host);
		loaded = { modules: load() };
	});
	return loaded!.modules;
}

/** A new process's delivery memory (dedupe.ts). */
export function freshDedupe(): Dedupe {
	return freshModules(() => jest.requireActual<Dedupe>('../../nodes/ConsentFlowTrigger/dedupe'));
}

/** A new process's signing credential cache (verify.ts). */
export function freshCredentialCache(): CredentialCache {
	return freshModules(() =>
		jest.requireActual<CredentialCache>('../../nodes/shared/webhook/verify'),
	);
}

/** One n8n process: the Consent Flow Trigger and the delivery memory it uses, from one copy. */
export interface TriggerProcess {
	ConsentFlowTrigger: typeof TriggerModule.ConsentFlowTrigger;
	dedupe: Dedupe;
}

/** n8n-workflow as n8n 1.x has it: no webhook-description resolvers (n8n evaluates the templates). */
const n8n1Workflow = { ...hostWorkflow, resolveWebhookDescriptionField: undefined };

/** A new process's Consent Flow Trigger and its delivery memory, in n8n 2.41 (default) or 1.x. */
export function freshTrigger(n8nMajor: 1 | 2 = 2): TriggerProcess {
	return freshModules(
		() => ({
			ConsentFlowTrigger: jest.requireActual<typeof TriggerModule>(
				'../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node',
			).ConsentFlowTrigger,
			dedupe: jest.requireActual<Dedupe>('../../nodes/ConsentFlowTrigger/dedupe'),
		}),
		n8nMajor === 1 ? n8n1Workflow : hostWorkflow,
	);
}
