// The spend guard as a ready policy pack. It runs from node_modules/pulumi-proxy/policy-pack of a project where
// `npm install pulumi-proxy @pulumi/policy` has run: @pulumi/policy resolves from the project's node_modules.
const { PolicyPack } = require("@pulumi/policy");
const { spendGuardPolicies } = require("../dist/policy");

new PolicyPack("pulumi-proxy-spend-guard", { policies: spendGuardPolicies() });
