#!/bin/bash
# 1. Setup (once)
source /project/6014832/ermia/HF-TRL/.claude/skills/slurm-model-trainer/utils/setup_env.sh

# 2. Pre-download
export HF_HOME=$SCRATCH/.cache/huggingface
python -c "from transformers import AutoModelForCausalLM; AutoModelForCausalLM.from_pretrained('Qwen/Qwen2.5-7B')"
python -c "from datasets import load_dataset; load_dataset('trl-lib/Capybara')"

# 3. Create job script
cat > train_job.sh << 'EOF'
#!/bin/bash
#SBATCH --job-name=qwen7b-sft
#SBATCH --partition=gpubase_bygpu_b3
#SBATCH --gres=gpu:h100:1
#SBATCH --cpus-per-task=8
#SBATCH --mem=64G
#SBATCH --time=04:00:00

source ~/.env
export HF_HOME=$SCRATCH/.cache/huggingface

source /scratch/ermia/venvs/hf_env/bin/activate

python /project/6014832/ermia/HF-TRL/.claude/skills/slurm-model-trainer/scripts/train_sft.py \
    --model_name_or_path Qwen/Qwen2.5-7B \
    --dataset_name trl-lib/Capybara \
    --output_dir $SCRATCH/outputs/qwen7b-sft-$SLURM_JOB_ID \
    --num_train_epochs 1 \
    --per_device_train_batch_size 2 \
    --gradient_accumulation_steps 8 \
    --learning_rate 2e-4 \
    --max_seq_length 2048 \
    --use_4bit \
    --bf16 \
    --gradient_checkpointing \
    --lora_r 64 \
    --lora_alpha 128 \
    --test_size 0.1 \
    --eval_strategy steps \
    --eval_steps 100 \
    --save_strategy steps \
    --save_steps 100 \
    --push_to_hub \
    --hub_model_id ermiaazarkhalili/Qwen2.5-7B-SFT-Capybara \
    --report_to trackio \
    --project sft-training \
    --run_name qwen7b-sft-$SLURM_JOB_ID
EOF

# 4. Submit job
sbatch train_job.sh

# 5. Monitor
squeue -u $USER
tail -f slurm-*.out

# 6. After training completes - generate model card
python scripts/generate_model_card.py \
    --model_name "Qwen2.5-7B-SFT-Capybara" \
    --base_model "Qwen/Qwen2.5-7B" \
    --dataset "trl-lib/Capybara" \
    --training_log $SCRATCH/outputs/qwen7b-sft-*/training.log \
    --output_dir ./model_card

# 7. Push model card to Hub
python -c "
from huggingface_hub import HfApi
api = HfApi()
api.upload_file(
    path_or_fileobj='./model_card/README.md',
    path_in_repo='README.md',
    repo_id='ermiaazarkhalili/Qwen2.5-7B-SFT-Capybara'
)
"

# 8. Convert to GGUF
python scripts/convert_gguf.py \
    --model_id ermiaazarkhalili/Qwen2.5-7B-SFT-Capybara \
    --output_dir ./gguf_output \
    --quantization Q4_K_M Q5_K_M Q8_0 \
    --push_to_hub \
    --hub_repo_id ermiaazarkhalili/Qwen2.5-7B-SFT-Capybara-GGUF
