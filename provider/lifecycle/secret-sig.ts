// pulumi/pulumi sdk/go/common/resource/sig: the key and value that mark an object as a secret,
// wherever Pulumi passes property values as JSON (the provider protocol's Structs, the state a
// `pulumi stack export` prints).
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
