// Which way n8n answers an Immediately delivery is n8n's decision: n8n 2.x resolves the webhook
// description's responseMode natively — and so answers after storing the execution — only when
// no node parameter is dynamic (n8n-workflow's resolveWebhookDescriptionField and
// nodeParametersAreStatic). The node asks the host's n8n-workflow where it has the resolvers
// (n8n-compat.ts); on any parameters, answersAtEnqueue must agree with what n8n-workflow 2.41
// itself resolves, or n8n and the node would each wait for the other to answer.
import fc from 'fast-check';
import { resolveWebhookDescriptionField, type IWebhookDescription } from 'n8n-workflow';

import { ConsentFlowTrigger } from '../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import { answersAtEnqueue } from '../../../nodes/ConsentFlowTrigger/respond';

const hook = new ConsentFlowTrigger().description.webhooks![0] as unknown as IWebhookDescription;

// Parameter values as a saved workflow can hold them: plain values, expressions ('=…'), resource
// locators (complete or not), nested collections and lists.
const leaf = fc.oneof(
	fc.string(),
	fc.string().map((s) => `=${s}`),
	fc.constantFrom('onReceived', 'lastNode', '={{ "onReceived" }}', '', '='),
	fc.integer(),
	fc.boolean(),
	fc.constant(null),
);
const locatorish = fc.record(
	{ __rl: fc.oneof(fc.constant(true), fc.boolean(), fc.string()), mode: fc.string(), value: leaf },
	{ requiredKeys: [] },
);
const value = fc.letrec((tie) => ({
	any: fc.oneof({ depthSize: 'small' }, leaf, locatorish, tie('list'), tie('object')),
	list: fc.array(tie('any'), { maxLength: 3 }),
	object: fc.dictionary(fc.constantFrom('a', 'b', 'mode', 'value', '__rl', 'events'), tie('any'), {
		maxKeys: 3,
	}),
})).any;
const parameters = fc.record(
	{
		respond: fc.oneof(fc.constantFrom('onReceived', 'lastNode', '={{ "lastNode" }}'), leaf),
		events: value,
		options: value,
		rememberedDeliveries: value,
	},
	{ requiredKeys: [] },
);

it('answersAtEnqueue agrees with n8n-workflow 2.41 resolving responseMode to onReceived, on any parameters', () => {
	fc.assert(
		fc.property(parameters, (p) => {
			const native = resolveWebhookDescriptionField(
				{ parameters: p } as never,
				hook,
				'responseMode',
			);
			const n8nAnswersAtEnqueue = native.resolved && native.value === 'onReceived';
			expect(answersAtEnqueue(p as Record<string, unknown>)).toBe(n8nAnswersAtEnqueue);
		}),
		{ numRuns: 2000 },
	);
});
