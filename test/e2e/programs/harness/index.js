// The smallest program that exercises what the harness must handle: a dynamic resource (its provider runs in a
// separate process), a secret config value, and stack outputs.
const pulumi = require("@pulumi/pulumi");

const config = new pulumi.Config("harness");
const provider = {
  async create(inputs) {
    return { id: `note-${inputs.text.length}`, outs: { text: inputs.text, length: inputs.text.length } };
  },
  async read(id, props) {
    return { id, props, inputs: { text: props.text } };
  },
};

class Note extends pulumi.dynamic.Resource {
  constructor(name, args) {
    super(provider, name, { text: args.text, length: undefined }, {}, "harness", "Note");
  }
}

const note = new Note("note", { text: config.require("text") });
exports.length = note.length;
exports.token = config.requireSecret("token");
