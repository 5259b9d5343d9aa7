process.env.TESTCONTAINERS_RYUK_DISABLED = "true";
const { connectDocker } = await import("./dist/control-plane/src/placement/docker-connection.js");
const { verifyImage } = await import("./dist/images/pipeline/verify/verify-image.js");
const { imageTags } = await import("./dist/images/pipeline/image-set.js");
const t0 = Date.now();
const v = await verifyImage(await connectDocker(), imageTags().runtime);
console.log(JSON.stringify(v, null, 1), (Date.now()-t0)/1000);
