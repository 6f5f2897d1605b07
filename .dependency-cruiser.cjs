module.exports = { forbidden: [], options: { parser: "swc", doNotFollow: { path: "node_modules" } } };
