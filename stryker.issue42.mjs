// Mutation testing of the modules issue 42 adds or changes, and rotation.ts and cloudevents.ts:
// `npx stryker run stryker.issue42.mjs` (figures: docs/mutation-issue42.md).
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
	...base,
	mutate: [
		'nodes/shared/identity-search.ts',
		'nodes/shared/webhook/minimise.ts',
		'nodes/shared/transport/redact.ts',
		'nodes/shared/webhook/rotation.ts',
		'nodes/shared/webhook/cloudevents.ts',
	],
	jest: { ...base.jest, configFile: 'jest.mutation.issue42.config.js' },
	htmlReporter: { fileName: 'reports/mutation/issue42.html' },
	jsonReporter: { fileName: 'reports/mutation/issue42.json' },
	reporters: ['clear-text', 'html', 'json', 'progress'],
	tempDirName: '.stryker-tmp-issue42',
	concurrency: 2,
};
