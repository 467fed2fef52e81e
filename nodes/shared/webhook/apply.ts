/** Carries out decide.ts's answer: the only code that writes to a delivery's HTTP response. */
import type { INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { answerWhenStored } from '../n8n-compat';
import type { Answer } from './decide';
import type { ResponseLike } from './verify';

/** A run's items go to n8n; who answers is the plan's (the trigger's memory follows the run: dedupe.ts). */
export function apply(
	ctx: IWebhookFunctions,
	answer: Answer,
	run: { items: INodeExecutionData[] } = { items: [] },
): IWebhookResponseData {
	if (answer.kind === 'now') {
		const res = ctx.getResponseObject() as unknown as ResponseLike;
		if (answer.by === 'n8n') return { webhookResponse: answer.body };
		for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader?.(name, value);
		if (typeof answer.body === 'string') res.status(answer.status).send(answer.body).end();
		else res.status(answer.status).json(answer.body);
		return { noWebhookResponse: true };
	}
	const workflowData = [run.items];
	switch (answer.plan.answeredBy) {
		case 'n8n-when-stored':
			return answerWhenStored({ workflowData }, () => answer.ack);
		case 'execute':
			return { workflowData, noWebhookResponse: true };
		default:
			return { workflowData };
	}
}
