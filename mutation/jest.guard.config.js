// Jest config for mutation/stryker.guard.mjs only: the tests written for the module under mutation,
// chosen by SBL_MUTATION_SET (identity | minimise | redact | personal | failure | createAndWait | trigger |
// retry), so that each mutant run, static ones included, takes seconds.
const mutation = require('./jest.config');

const SETS = {
	// isIban (identity-search.ts) is what Minimise's account rule calls
	identity: [
		'<rootDir>/test/nodes/shared/identity-search.property.test.ts',
		'<rootDir>/test/nodes/shared/webhook/minimise-business.test.ts',
	],
	minimise: [
		'<rootDir>/test/nodes/shared/webhook/minimise.test.ts',
		'<rootDir>/test/nodes/shared/webhook/minimise-names.test.ts',
		'<rootDir>/test/nodes/shared/webhook/minimise-values.property.test.ts',
		'<rootDir>/test/nodes/shared/webhook/minimise-business.test.ts',
	],
	redact: [
		'<rootDir>/test/nodes/shared/transport/{redaction,redaction-forms,redaction-values,redact,credential-secrets}.test.ts',
	],
	personal: ['<rootDir>/test/nodes/shared/personal{,.property}.test.ts'],
	// the minimising lines of Create and Wait and of the trigger
	createAndWait: ['<rootDir>/test/nodes/ConsentFlow/{createAndWait,outcome}.test.ts'],
	trigger: [
		'<rootDir>/test/nodes/ConsentFlowTrigger/{minimise,ConsentFlowTrigger.node}.integration.test.ts',
	],
	// and the node tests that read the credential's own token refusal back
	failure: [
		'<rootDir>/test/nodes/shared/transport/*.test.ts',
		'<rootDir>/test/nodes/ConsentFlow/{own-token-failure,errors}.test.ts',
		'<rootDir>/test/nodes/RealEstateEstimate/errors.test.ts',
	],
	retry: ['<rootDir>/test/nodes/shared/transport/retry*.test.ts'],
};
const set = SETS[process.env.SBL_MUTATION_SET ?? ''];
if (!set) throw new Error(`SBL_MUTATION_SET must be one of ${Object.keys(SETS).join(', ')}`);

module.exports = { ...mutation, testMatch: set };
