import { Duration, Stack, StackProps } from 'aws-cdk-lib';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export class WorkerStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    const queue = new sqs.Queue(this, 'WorkQueue', {
      visibilityTimeout: Duration.seconds(120),
    });

    const taskDefinition = new ecs.FargateTaskDefinition(this, 'WorkerTask', {
      cpu: 256,
      memoryLimitMiB: 512,
    });
    taskDefinition.addContainer('worker', {
      image: ecs.ContainerImage.fromAsset('worker'),
      environment: {
        QUEUE_URL: queue.queueUrl,
        STAGE: 'prod',
      },
    });
    queue.grantConsumeMessages(taskDefinition.taskRole);

    new ecs.FargateService(this, 'WorkerService', {
      cluster: new ecs.Cluster(this, 'Cluster'),
      taskDefinition,
      desiredCount: 2,
    });
  }
}
